#include "bot/git_push.h"

#include <git2.h>

#include "bot/git_branch_writer.h"
#include "bot/redact.h"

namespace kgate::bot {
namespace {

struct PushState {
  const std::string* password;
  int credential_calls = 0;
  std::string rejected;  // a ref the remote refused, with its reason
};

int on_credentials(git_credential** out, const char* /*url*/, const char* /*user*/,
                   unsigned int allowed, void* payload) {
  auto* state = static_cast<PushState*>(payload);
  // libgit2 asks again after a refusal; a second ask means the token was refused.
  if (state->password->empty() || ++state->credential_calls > 1 ||
      !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
    return GIT_EAUTH;
  return git_credential_userpass_plaintext_new(out, "x-access-token", state->password->c_str());
}

int on_push_update(const char* refname, const char* status, void* payload) {
  if (status) static_cast<PushState*>(payload)->rejected = std::string(refname) + ": " + status;
  return 0;
}

}  // namespace

Status push_branch_to(const std::filesystem::path& repo_dir, const std::string& remote_url,
                      const std::string& branch, const std::string& password, bool force) {
  ensure_libgit2();
  register_secret(password);
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, repo_dir.c_str(), 0, nullptr) != 0)
    return Error::bad_input(
        git_error_text("cannot open the git repository at " + repo_dir.string()));
  git_remote* remote = nullptr;
  Status status;
  if (git_remote_create_anonymous(&remote, repo, remote_url.c_str()) != 0) {
    status = Error::bad_input(git_error_text("bad git remote '" + remote_url + "'"));
  } else {
    PushState state{&password};
    git_push_options options;
    git_push_options_init(&options, GIT_PUSH_OPTIONS_VERSION);
    options.callbacks.credentials = on_credentials;
    options.callbacks.push_update_reference = on_push_update;
    options.callbacks.payload = &state;
    std::string refspec = (force ? "+" : "") + ("refs/heads/" + branch + ":refs/heads/" + branch);
    char* specs[] = {refspec.data()};
    git_strarray refspecs = {specs, 1};
    if (git_remote_push(remote, &refspecs, &options) != 0)
      status = Error::infrastructure(
          git_error_text("pushing branch '" + branch + "' to " + redact(remote_url) + " failed"));
    else if (!state.rejected.empty())
      status = Error::infrastructure(redact("the remote refused " + state.rejected));
    git_remote_free(remote);
  }
  git_repository_free(repo);
  return status;
}

}  // namespace kgate::bot
