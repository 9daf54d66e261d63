#include "bot/github_forge.h"

#include <ctime>

#include "bot/summary_fit.h"
#include "core/redact.h"
#include "core/utc_time.h"
#include "gate/git_push.h"
#include "gate/git_remote_branch.h"

namespace kgate::bot {
namespace {

using nlohmann::json;

std::string annotation_level(const std::string& level) {
  if (level == "notice" || level == "warning" || level == "failure") return level;
  if (level == "error") return "failure";
  return "warning";
}

json annotation_json(const Annotation& a) {
  json j = {{"path", a.path},
            {"start_line", std::max(1, a.line)},
            {"end_line", std::max(std::max(1, a.line), a.end_line)},
            {"annotation_level", annotation_level(a.level)},
            {"message", utf8_prefix(a.message, 64 * 1024 - 1)}};
  if (!a.title.empty()) j["title"] = utf8_prefix(a.title, 255);
  return j;
}

PullRequest pull_from_json(const json& j) {
  PullRequest pr;
  pr.number = j.value("number", 0);
  pr.state = j.value("state", std::string());
  pr.merged = j.contains("merged_at") && j["merged_at"].is_string();
  pr.title = j.value("title", std::string());
  pr.body =
      j.contains("body") && j["body"].is_string() ? j["body"].get<std::string>() : std::string();
  pr.url = j.value("html_url", std::string());
  if (j.contains("head") && j["head"].is_object())
    pr.head_branch = j["head"].value("ref", std::string());
  if (j.contains("base") && j["base"].is_object())
    pr.base_branch = j["base"].value("ref", std::string());
  if (j.contains("labels") && j["labels"].is_array())
    for (const auto& l : j["labels"])
      if (l.is_object() && l.contains("name") && l["name"].is_string())
        pr.labels.push_back(l["name"]);
  return pr;
}

}  // namespace

std::string status_state_for(const std::string& conclusion) {
  if (conclusion == "success" || conclusion == "neutral" || conclusion == "skipped")
    return "success";
  if (conclusion == "failure" || conclusion == "action_required") return "failure";
  return "error";  // cancelled, timed_out, anything unknown
}

GitHubForge::GitHubForge(std::shared_ptr<GitHubClient> client, GitHubForgeConfig config)
    : client_(std::move(client)), config_(std::move(config)) {
  while (!config_.web_url.empty() && config_.web_url.back() == '/') config_.web_url.pop_back();
  if (config_.git_url.empty())
    config_.git_url = config_.web_url + "/" + config_.owner + "/" + config_.repo + ".git";
}

std::string GitHubForge::describe() const {
  return "GitHub " + config_.owner + "/" + config_.repo + " (" + client_->credentials().describe() +
         ")";
}

Result<std::string> GitHubForge::start_check(const std::string& head_sha, const std::string& name) {
  if (config_.use_commit_statuses) {
    KGATE_RETURN_IF_ERROR(set_commit_status(
        head_sha, {.state = "pending", .description = "kgate is measuring", .context = name}));
    return "status:" + name;
  }
  Result<json> run = client_->call("POST", repo_path() + "/check-runs",
                                   json{{"name", name},
                                        {"head_sha", head_sha},
                                        {"status", "in_progress"},
                                        {"started_at", utc_now_iso8601()}});
  if (!run.ok()) return run.error().with_context("creating check run '" + name + "'");
  if (!(*run)["id"].is_number_integer())
    return Error::infrastructure("GitHub created a check run without an id");
  return std::to_string((*run)["id"].get<long long>());
}

Status GitHubForge::finish_check(const std::string& check_id, const std::string& head_sha,
                                 const CheckRunReport& report) {
  if (!is_valid_conclusion(report.conclusion))
    return Error::bad_input("'" + report.conclusion + "' is not a check-run conclusion");
  if (config_.use_commit_statuses || check_id.rfind("status:", 0) == 0) {
    CommitStatus status{.state = status_state_for(report.conclusion),
                        .target_url = report.details_url,
                        .description = utf8_prefix(report.title, 140),
                        .context = report.name};
    return set_commit_status(head_sha, status);
  }
  const std::string path = repo_path() + "/check-runs/" + check_id;
  json output = {{"title", utf8_prefix(report.title, 1000)},
                 {"summary", fit_summary(report.summary_markdown)}};
  if (!report.details_markdown.empty()) output["text"] = fit_summary(report.details_markdown);
  // GitHub appends the annotations of every update; all but the last batch
  // go out while the run is still in progress.
  const auto& all = report.annotations;
  size_t batches = all.empty() ? 1 : (all.size() + kAnnotationBatch - 1) / kAnnotationBatch;
  for (size_t b = 0; b < batches; ++b) {
    json body = {{"output", output}};
    json annotations = json::array();
    for (size_t i = b * kAnnotationBatch; i < std::min(all.size(), (b + 1) * kAnnotationBatch); ++i)
      annotations.push_back(annotation_json(all[i]));
    if (!annotations.empty()) body["output"]["annotations"] = annotations;
    if (b + 1 == batches) {
      body["status"] = "completed";
      body["conclusion"] = report.conclusion;
      body["completed_at"] = utc_now_iso8601();
      if (!report.details_url.empty()) body["details_url"] = report.details_url;
    }
    Result<json> r = client_->call("PATCH", path, body);
    if (!r.ok()) return r.error().with_context("updating check run " + check_id);
  }
  return {};
}

Status GitHubForge::set_commit_status(const std::string& sha, const CommitStatus& status) {
  json body = {{"state", status.state}, {"context", status.context}};
  if (!status.target_url.empty()) body["target_url"] = status.target_url;
  if (!status.description.empty()) body["description"] = utf8_prefix(status.description, 140);
  Result<json> r = client_->call("POST", repo_path() + "/statuses/" + sha, body);
  if (!r.ok()) return r.error().with_context("setting the commit status of " + sha.substr(0, 12));
  return {};
}

Result<std::vector<PullRequest>> GitHubForge::pull_requests_for_branch(const std::string& branch) {
  Result<json> list = client_->get_all(
      repo_path() + "/pulls?state=all&per_page=100&head=" + config_.owner + ":" + branch);
  if (!list.ok()) return list.error().with_context("listing pull requests for " + branch);
  std::vector<PullRequest> prs;
  for (const auto& j : *list) {
    PullRequest pr = pull_from_json(j);
    if (pr.head_branch == branch) prs.push_back(std::move(pr));
  }
  std::sort(prs.begin(), prs.end(),
            [](const auto& a, const auto& b) { return a.number > b.number; });
  return prs;
}

Result<PullRequest> GitHubForge::create_pull_request(const PullRequestDraft& draft) {
  Result<json> r = client_->call("POST", repo_path() + "/pulls",
                                 json{{"title", draft.title},
                                      {"head", draft.head_branch},
                                      {"base", draft.base_branch},
                                      {"body", draft.body},
                                      {"maintainer_can_modify", true}});
  if (!r.ok()) return r.error().with_context("opening a pull request from " + draft.head_branch);
  return pull_from_json(*r);
}

Status GitHubForge::update_pull_request(int number, const std::string& title,
                                        const std::string& body) {
  Result<json> r = client_->call("PATCH", repo_path() + "/pulls/" + std::to_string(number),
                                 json{{"title", title}, {"body", body}});
  if (!r.ok()) return r.error().with_context("updating pull request #" + std::to_string(number));
  return {};
}

Status GitHubForge::close_pull_request(int number) {
  Result<json> r = client_->call("PATCH", repo_path() + "/pulls/" + std::to_string(number),
                                 json{{"state", "closed"}});
  if (!r.ok()) return r.error().with_context("closing pull request #" + std::to_string(number));
  return {};
}

Status GitHubForge::add_labels(int number, const std::vector<std::string>& labels) {
  Result<json> r =
      client_->call("POST", repo_path() + "/issues/" + std::to_string(number) + "/labels",
                    json{{"labels", labels}});
  if (!r.ok()) return r.error().with_context("labelling pull request #" + std::to_string(number));
  return {};
}

Result<BotIdentity> GitHubForge::identity() {
  if (identity_) return *identity_;
  BotIdentity id;
  std::string slug = config_.app_slug;
  if (slug.empty() && client_->credentials().is_app()) {
    Result<std::string> own = client_->credentials().app_slug();
    if (!own.ok()) return own.error().with_context("learning kgate's GitHub App (KGATE_APP_SLUG)");
    slug = *own;
  }
  if (slug.empty()) slug = "kgate";
  id.name = bot_login_for_slug(slug);
  int64_t user_id = config_.bot_user_id;
  if (user_id <= 0) {
    // The bot user of a GitHub App is public: GET /users/<slug>[bot].
    std::string path = "/users/" + slug + "%5Bbot%5D";
    Result<ApiResponse> user = client_->send("GET", path);
    if (!user.ok()) return user.error().with_context("looking up kgate's bot user " + id.name);
    if (user->status == 200 && user->json.is_object() && user->json["id"].is_number_integer())
      user_id = user->json["id"].get<int64_t>();
    else if (user->status != 404)
      return Error::infrastructure(describe_github_error("GET", path, *user));
    // 404: no App of that slug (a token without an App); commits carry the address without an id.
  }
  id.email = noreply_email(user_id, id.name);
  if (!config_.bot_login.empty()) {
    id.login = config_.bot_login;
  } else if (client_->credentials().is_app()) {
    id.login = id.name;
  } else {
    // A personal token has a user; an installation token (an App's, handed
    // over as GITHUB_TOKEN) has none and acts as the App's bot user.
    Result<ApiResponse> me = client_->send("GET", "/user");
    if (me.ok() && me->status == 200 && me->json.is_object() && me->json["login"].is_string())
      id.login = me->json["login"].get<std::string>();
    else if (me.ok() && me->status == 403)
      id.login = id.name;
    else
      id.login = "";  // unknown: no comment counts as kgate's, so none is edited
  }
  identity_ = id;
  return id;
}

Status GitHubForge::upsert_comment(int number, const std::string& marker, const std::string& body) {
  const std::string text = body.find(marker) == std::string::npos ? marker + "\n" + body : body;
  Result<BotIdentity> me = identity();
  if (!me.ok()) return me.error();
  Result<json> comments = client_->get_all(repo_path() + "/issues/" + std::to_string(number) +
                                           "/comments?per_page=100");
  if (!comments.ok()) return comments.error().with_context("reading comments");
  for (const auto& c : *comments) {
    // A marker anyone can type; the author only kgate can be.
    const json& user = c.contains("user") && c["user"].is_object() ? c["user"] : json::object();
    bool ours = !me->login.empty() && user.value("login", std::string()) == me->login;
    if (ours && c.contains("body") && c["body"].is_string() &&
        c["body"].get<std::string>().find(marker) != std::string::npos && c.contains("id") &&
        c["id"].is_number_integer()) {
      Result<json> r = client_->call(
          "PATCH", repo_path() + "/issues/comments/" + std::to_string(c["id"].get<long long>()),
          json{{"body", text}});
      if (!r.ok()) return r.error().with_context("editing kgate's comment");
      return {};
    }
  }
  Result<json> r =
      client_->call("POST", repo_path() + "/issues/" + std::to_string(number) + "/comments",
                    json{{"body", text}});
  if (!r.ok()) return r.error().with_context("commenting on #" + std::to_string(number));
  return {};
}

Result<std::optional<std::string>> GitHubForge::branch_tip(const std::filesystem::path& repo_dir,
                                                           const std::string& branch) {
  Result<std::string> password = client_->credentials().git_password();
  if (!password.ok()) return password.error();
  return fetch_remote_branch(repo_dir, config_.git_url, branch, *password);
}

Status GitHubForge::push_branch(const std::filesystem::path& repo_dir, const std::string& branch,
                                bool force) {
  Result<std::string> password = client_->credentials().git_password();
  if (!password.ok()) return password.error();
  return push_branch_to(repo_dir, config_.git_url, branch, *password, force);
}

}  // namespace kgate::bot
