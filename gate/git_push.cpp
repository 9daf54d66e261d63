#include "gate/git_push.h"

#include "core/redact.h"
#include "gate/git_handle.h"

namespace kgate {
namespace {

struct PushState {
  GitTokenOffer offer;
  std::string rejected;  // a ref the remote refused, with its reason
};

int on_credentials(git_credential** out, const char* url, const char* user, unsigned int allowed,
                   void* payload) {
  return offer_git_token(out, url, user, allowed, &static_cast<PushState*>(payload)->offer);
}

int on_push_update(const char* refname, const char* status, void* payload) {
  if (status) static_cast<PushState*>(payload)->rejected = std::string(refname) + ": " + status;
  return 0;
}

}  // namespace

Status push_branch_to(const std::filesystem::path& repo_dir, const std::string& remote_url,
                      const std::string& branch, const std::string& password, bool force) {
  register_secret(password);
  GitRepoHandle repo;
  KGATE_RETURN_IF_ERROR(open_git_repository(repo_dir, repo));
  GitRemoteHandle remote;
  Status status;
  if (git_remote_create_anonymous(remote.out(), repo.get(), remote_url.c_str()) != 0) {
    status = Error::bad_input(git_error_text("bad git remote '" + redact(remote_url) + "'"));
  } else {
    PushState state{{&password}, ""};
    git_push_options options;
    git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
    options.callbacks.credentials = on_credentials;
    options.callbacks.push_update_reference = on_push_update;
    options.callbacks.payload = &state;
    std::string refspec = (force ? "+" : "") + ("refs/heads/" + branch + ":refs/heads/" + branch);
    char* specs[] = {refspec.data()};
    git_strarray refspecs = {specs, 1};
    if (git_remote_push(remote.get(), &refspecs, &options) != 0)
      status = Error::infrastructure(
          git_error_text("pushing branch '" + branch + "' to " + redact(remote_url) + " failed"));
    else if (!state.rejected.empty())
      status = Error::infrastructure(redact("the remote refused " + state.rejected));
  }
  return status;
}

}  // namespace kgate
