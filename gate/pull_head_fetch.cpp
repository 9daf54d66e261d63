#include "gate/pull_head_fetch.h"

#include <optional>
#include <vector>

#include "core/redact.h"
#include "gate/git_handle.h"

namespace kgate {
namespace {

bool has_commit(git_repository* repo, const git_oid& oid) {
  GitCommitHandle commit;
  return git_commit_lookup(commit.out(), repo, &oid) == 0;
}

Result<git_oid> parse_oid(const std::string& sha, const char* what) {
  git_oid oid;
  if (sha.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, sha.c_str()) != 0)
    return Error::bad_input(std::string(what) + " '" + sha + "' is not a full commit id");
  return oid;
}

}  // namespace

bool is_git_repository(const std::filesystem::path& repo_dir) {
  ensure_libgit2();
  GitRepoHandle repo;
  return git_repository_open_ext(repo.out(), repo_dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH,
                                 nullptr) == 0;
}

Result<PullHead> ensure_pull_head(const PullHeadRequest& request) {
  ensure_libgit2();
  register_secret(request.password);
  Result<git_oid> head = parse_oid(request.head_sha, "the pull request's head");
  if (!head.ok()) return head.error();
  std::optional<git_oid> base;
  if (!request.base_sha.empty()) {
    Result<git_oid> parsed = parse_oid(request.base_sha, "the pull request's base");
    if (!parsed.ok()) return parsed.error();
    base = *parsed;
  }
  GitRepoHandle repo_handle;
  if (git_repository_open_ext(repo_handle.out(), request.repo_dir.c_str(),
                              GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) != 0)
    return Error::bad_input(
        git_error_text("cannot open the git repository at " + request.repo_dir.string()));
  git_repository* repo = repo_handle.get();
  bool need_base = base && !has_commit(repo, *base);
  if (has_commit(repo, *head) && !need_base) return PullHead{false, request.head_sha, ""};

  std::string number = std::to_string(request.pull_number);
  GitRemoteHandle remote_handle;
  if (git_remote_lookup(remote_handle.out(), repo, request.remote.c_str()) != 0)
    return Error::bad_input(git_error_text(
        "pull request #" + number + ": head " + request.head_sha.substr(0, 12) + " is not in " +
        request.repo_dir.string() + " and it has no remote '" + request.remote +
        "' to fetch refs/pull/" + number + "/head from (git remote add " + request.remote +
        " https://github.com/OWNER/NAME.git)"));
  git_remote* remote = remote_handle.get();

  PullHead result;
  result.fetched = true;
  result.ref = "refs/kgate/pull/" + number + "/head";
  // A forced update: a force-push to the pull request moves its head anywhere.
  std::vector<std::string> specs = {"+refs/pull/" + number + "/head:" + result.ref};
  if (need_base) specs.push_back("+refs/heads/*:refs/remotes/" + request.remote + "/*");
  std::vector<char*> raw;
  for (auto& s : specs) raw.push_back(s.data());
  git_strarray refspecs = {raw.data(), raw.size()};
  GitTokenOffer state{&request.password};
  git_fetch_options options;
  git_fetch_options_init(&options, GIT_FETCH_OPTIONS_VERSION);
  options.callbacks.credentials = offer_git_token;
  options.callbacks.payload = &state;
  std::string url = git_remote_url(remote) ? git_remote_url(remote) : request.remote;
  if (git_remote_fetch(remote, &refspecs, &options, "kgate: fetch pull request head") != 0)
    return Error::infrastructure(git_error_text("fetching refs/pull/" + number + "/head from " +
                                                request.remote + " (" + redact(url) + ") failed"));
  git_oid fetched;
  if (git_reference_name_to_id(&fetched, repo, result.ref.c_str()) != 0)
    return Error::infrastructure("fetching from " + request.remote + " (" + redact(url) +
                                 ") brought no refs/pull/" + number +
                                 "/head: the remote has no such pull request (is '" +
                                 request.remote + "' the pull request's base repository?)");
  result.commit = oid_hex(fetched);
  if (need_base && !has_commit(repo, *base))
    return Error::infrastructure(
        "pull request #" + number + ": base " + request.base_sha.substr(0, 12) + " is neither in " +
        request.repo_dir.string() + " nor on any branch of " + request.remote);
  return result;
}

}  // namespace kgate
