#include "bot/local_forge.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>

#include "core/file_util.h"
#include "core/redact.h"
#include "core/utc_time.h"
#include "gate/git_repository.h"

namespace kgate::bot {
namespace {

Result<std::string> local_branch_sha(const std::filesystem::path& repo_dir,
                                     const std::string& branch) {
  auto repo = GitRepository::open(repo_dir);
  if (!repo.ok()) return repo.error();
  return (*repo)->resolve("refs/heads/" + branch);
}

}  // namespace
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// An exclusive flock on <state>/.lock for the life of the object.
class StateLock {
 public:
  explicit StateLock(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    fd_ = ::open((dir / ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~StateLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  int fd_ = -1;
};

// File-name-safe form of a check name or status context.
std::string slug(const std::string& s) {
  std::string out;
  for (char c : s)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.') ? c : '_';
  return out.empty() ? "_" : out;
}

PullRequest pull_from_json(const json& j, const fs::path& md) {
  PullRequest pr;
  pr.number = j.value("number", 0);
  pr.state = j.value("state", std::string("open"));
  pr.merged = j.value("merged", false);
  pr.head_branch = j.value("head_branch", std::string());
  pr.base_branch = j.value("base_branch", std::string());
  pr.title = j.value("title", std::string());
  pr.body = j.value("body", std::string());
  pr.url = md.string();
  if (j.contains("labels")) pr.labels = j["labels"].get<std::vector<std::string>>();
  return pr;
}

}  // namespace

LocalForge::LocalForge(fs::path repo_dir, fs::path state_dir)
    : repo_dir_(std::move(repo_dir)), state_dir_(std::move(state_dir)) {}

std::string LocalForge::describe() const {
  return "local forge (" + state_dir_.string() + ")";
}

Result<std::string> LocalForge::start_check(const std::string& head_sha, const std::string& name) {
  std::string id = head_sha.substr(0, 12) + "-" + slug(name);
  json j = {{"name", name},
            {"head_sha", head_sha},
            {"status", "in_progress"},
            {"started_at", utc_now_iso8601()}};
  KGATE_RETURN_IF_ERROR(
      write_file_atomic(state_dir_ / "checks" / (id + ".json"), j.dump(2) + "\n"));
  return id;
}

Status LocalForge::finish_check(const std::string& check_id, const std::string& head_sha,
                                const CheckRunReport& report) {
  if (!is_valid_conclusion(report.conclusion))
    return Error::bad_input("'" + report.conclusion + "' is not a check-run conclusion");
  json annotations = json::array();
  for (const Annotation& a : report.annotations)
    annotations.push_back({{"path", a.path},
                           {"line", a.line},
                           {"level", a.level},
                           {"title", redact(a.title)},
                           {"message", redact(a.message)}});
  json j = {{"name", report.name},
            {"head_sha", head_sha},
            {"status", "completed"},
            {"conclusion", report.conclusion},
            {"completed_at", utc_now_iso8601()},
            {"title", redact(report.title)},
            {"summary", redact(report.summary_markdown)},
            {"annotations", annotations}};
  std::string md = "# " + redact(report.title) + "\n\n**" + report.conclusion + "** on `" +
                   head_sha + "`\n\n" + redact(report.summary_markdown) + "\n";
  if (!report.annotations.empty()) {
    md += "\n## Annotations\n\n";
    for (const Annotation& a : report.annotations)
      md += "- `" + a.path + ":" + std::to_string(a.line) + "` " + a.level + ": " +
            redact(a.message) + "\n";
  }
  KGATE_RETURN_IF_ERROR(
      write_file_atomic(state_dir_ / "checks" / (check_id + ".json"), j.dump(2) + "\n"));
  return write_file_atomic(state_dir_ / "checks" / (check_id + ".md"), md);
}

Status LocalForge::set_commit_status(const std::string& sha, const CommitStatus& status) {
  json j = {{"sha", sha},
            {"state", status.state},
            {"context", status.context},
            {"description", redact(status.description)},
            {"target_url", status.target_url},
            {"updated_at", utc_now_iso8601()}};
  return write_file_atomic(
      state_dir_ / "statuses" / (sha.substr(0, 12) + "-" + slug(status.context) + ".json"),
      j.dump(2) + "\n");
}

Result<json> LocalForge::load_pull(int number) const {
  Result<std::string> text = read_file(state_dir_ / "pulls" / (std::to_string(number) + ".json"));
  if (!text.ok()) return Error::bad_input("no local pull request #" + std::to_string(number));
  json j = json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error::bad_input("local pull request #" + std::to_string(number) + " is not valid JSON");
  return j;
}

Status LocalForge::save_pull(const json& pull) {
  const std::string n = std::to_string(pull.value("number", 0));
  std::string md = "# #" + n + " " + pull.value("title", std::string()) + "\n\n";
  md += "`" + pull.value("head_branch", std::string()) + "` → `" +
        pull.value("base_branch", std::string()) + "` · **" + pull.value("state", std::string()) +
        "**";
  if (pull.contains("labels") && !pull["labels"].empty()) {
    md += " · labels:";
    for (const auto& l : pull["labels"]) md += " `" + l.get<std::string>() + "`";
  }
  md += "\n\n" + pull.value("body", std::string()) + "\n";
  if (pull.contains("comments"))
    for (const auto& c : pull["comments"]) md += "\n---\n\n" + c["body"].get<std::string>() + "\n";
  KGATE_RETURN_IF_ERROR(
      write_file_atomic(state_dir_ / "pulls" / (n + ".json"), pull.dump(2) + "\n"));
  return write_file_atomic(state_dir_ / "pulls" / (n + ".md"), md);
}

Result<std::vector<PullRequest>> LocalForge::all_pull_requests() const {
  std::vector<PullRequest> prs;
  std::error_code ec;
  fs::path dir = state_dir_ / "pulls";
  if (!fs::exists(dir, ec)) return prs;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    Result<std::string> text = read_file(entry.path());
    if (!text.ok()) return text.error();
    json j = json::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
      return Error::bad_input(entry.path().string() + " is not a kgate pull request (bad JSON)");
    fs::path md = entry.path();
    md.replace_extension(".md");
    prs.push_back(pull_from_json(j, md));
  }
  std::sort(prs.begin(), prs.end(),
            [](const auto& a, const auto& b) { return a.number < b.number; });
  return prs;
}

Result<std::vector<PullRequest>> LocalForge::pull_requests_for_branch(const std::string& branch) {
  Result<std::vector<PullRequest>> all = all_pull_requests();
  if (!all.ok()) return all.error();
  std::vector<PullRequest> prs;
  for (auto it = all->rbegin(); it != all->rend(); ++it)
    if (it->head_branch == branch) prs.push_back(*it);
  return prs;
}

Result<PullRequest> LocalForge::create_pull_request(const PullRequestDraft& draft) {
  StateLock lock(state_dir_);
  Result<std::vector<PullRequest>> all = all_pull_requests();
  if (!all.ok()) return all.error();
  for (const PullRequest& pr : *all)
    if (pr.state == "open" && pr.head_branch == draft.head_branch)
      return Error::bad_input("local pull request #" + std::to_string(pr.number) +
                              " is already open for " + draft.head_branch);
  int number = all->empty() ? 1 : all->back().number + 1;
  json j = {{"number", number},
            {"state", "open"},
            {"merged", false},
            {"head_branch", draft.head_branch},
            {"base_branch", draft.base_branch},
            {"title", redact(draft.title)},
            {"body", redact(draft.body)},
            {"labels", json::array()},
            {"comments", json::array()},
            {"created_at", utc_now_iso8601()},
            {"updated_at", utc_now_iso8601()}};
  KGATE_RETURN_IF_ERROR(save_pull(j));
  return pull_from_json(j, state_dir_ / "pulls" / (std::to_string(number) + ".md"));
}

Status LocalForge::update_pull_request(int number, const std::string& title,
                                       const std::string& body) {
  StateLock lock(state_dir_);
  Result<json> j = load_pull(number);
  if (!j.ok()) return j.error();
  (*j)["title"] = redact(title);
  (*j)["body"] = redact(body);
  (*j)["updated_at"] = utc_now_iso8601();
  return save_pull(*j);
}

Status LocalForge::close_pull_request(int number) {
  StateLock lock(state_dir_);
  Result<json> j = load_pull(number);
  if (!j.ok()) return j.error();
  (*j)["state"] = "closed";
  (*j)["closed_at"] = utc_now_iso8601();
  return save_pull(*j);
}

Status LocalForge::add_labels(int number, const std::vector<std::string>& labels) {
  StateLock lock(state_dir_);
  Result<json> j = load_pull(number);
  if (!j.ok()) return j.error();
  std::vector<std::string> have = (*j)["labels"].get<std::vector<std::string>>();
  for (const auto& l : labels)
    if (std::find(have.begin(), have.end(), l) == have.end()) have.push_back(l);
  (*j)["labels"] = have;
  return save_pull(*j);
}

Status LocalForge::upsert_comment(int number, const std::string& marker, const std::string& body) {
  StateLock lock(state_dir_);
  Result<json> j = load_pull(number);
  if (!j.ok()) return j.error();
  const std::string text =
      redact(body.find(marker) == std::string::npos ? marker + "\n" + body : body);
  json& comments = (*j)["comments"];
  for (auto& c : comments)
    if (c["body"].get<std::string>().find(marker) != std::string::npos) {
      c["body"] = text;
      c["updated_at"] = utc_now_iso8601();
      return save_pull(*j);
    }
  comments.push_back(
      {{"id", comments.size() + 1}, {"body", text}, {"created_at", utc_now_iso8601()}});
  return save_pull(*j);
}

Result<std::vector<std::string>> LocalForge::comments(int number) const {
  Result<json> j = load_pull(number);
  if (!j.ok()) return j.error();
  std::vector<std::string> out;
  for (const auto& c : (*j)["comments"]) out.push_back(c["body"]);
  return out;
}

Status LocalForge::push_branch(const fs::path& repo_dir, const std::string& branch, bool) {
  // The branch is already where the local forge keeps branches; check it is there.
  Result<std::string> sha = local_branch_sha(repo_dir, branch);
  if (!sha.ok()) return sha.error().with_context("the local forge has no branch " + branch);
  return {};
}

Result<std::optional<std::string>> LocalForge::branch_tip(const fs::path& repo_dir,
                                                          const std::string& branch) {
  // The local forge's branches are the clone's own.
  Result<std::string> sha = local_branch_sha(repo_dir, branch);
  if (!sha.ok()) return std::optional<std::string>();
  return std::optional<std::string>(*sha);
}

}  // namespace kgate::bot
