#include "bot/remote_branch.h"

#include <git2.h>

#include <memory>

#include "bot/git_branch_writer.h"
#include "bot/redact.h"

namespace kgate::bot {
namespace {

struct CredentialState {
  const std::string* password;
  int calls = 0;
};

int on_credentials(git_credential** out, const char* /*url*/, const char* /*user*/,
                   unsigned int allowed, void* payload) {
  auto* state = static_cast<CredentialState*>(payload);
  // libgit2 asks again after a refusal; a second ask means the token was refused.
  if (state->password->empty() || ++state->calls > 1 ||
      !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
    return GIT_EAUTH;
  return git_credential_userpass_plaintext_new(out, "x-access-token", state->password->c_str());
}

template <class T>
using Owned = std::unique_ptr<T, void (*)(T*)>;

}  // namespace

std::string remote_branch_ref(const std::string& branch) {
  return "refs/kgate/remote/" + branch;
}

Result<std::optional<std::string>> fetch_remote_branch(const std::filesystem::path& repo_dir,
                                                       const std::string& remote_url,
                                                       const std::string& branch,
                                                       const std::string& password) {
  ensure_libgit2();
  register_secret(password);
  git_repository* raw_repo = nullptr;
  if (git_repository_open_ext(&raw_repo, repo_dir.c_str(), 0, nullptr) != 0)
    return Error::bad_input(
        git_error_text("cannot open the git repository at " + repo_dir.string()));
  Owned<git_repository> repo(raw_repo, git_repository_free);
  git_remote* raw_remote = nullptr;
  if (git_remote_create_anonymous(&raw_remote, repo.get(), remote_url.c_str()) != 0)
    return Error::bad_input(git_error_text("bad git remote '" + redact(remote_url) + "'"));
  Owned<git_remote> remote(raw_remote, git_remote_free);
  const std::string what = "reading branch '" + branch + "' of " + redact(remote_url);

  CredentialState state{&password};
  git_remote_callbacks callbacks;
  git_remote_init_callbacks(&callbacks, GIT_REMOTE_CALLBACKS_VERSION);
  callbacks.credentials = on_credentials;
  callbacks.payload = &state;
  if (git_remote_connect(remote.get(), GIT_DIRECTION_FETCH, &callbacks, nullptr, nullptr) != 0)
    return Error::infrastructure(git_error_text(what + " failed"));
  const git_remote_head** heads = nullptr;
  size_t count = 0;
  if (git_remote_ls(&heads, &count, remote.get()) != 0)
    return Error::infrastructure(git_error_text(what + " failed"));
  const std::string name = "refs/heads/" + branch;
  bool present = false;
  for (size_t i = 0; i < count; ++i) present |= name == heads[i]->name;
  git_remote_disconnect(remote.get());
  const std::string local = remote_branch_ref(branch);
  if (!present) {
    git_reference* stale = nullptr;
    if (git_reference_lookup(&stale, repo.get(), local.c_str()) == 0) {
      git_reference_delete(stale);
      git_reference_free(stale);
    }
    return std::optional<std::string>();
  }

  std::string spec = "+" + name + ":" + local;
  char* specs[] = {spec.data()};
  git_strarray refspecs = {specs, 1};
  state.calls = 0;
  git_fetch_options options;
  git_fetch_options_init(&options, GIT_FETCH_OPTIONS_VERSION);
  options.callbacks = callbacks;
  options.update_fetchhead = 0;
  if (git_remote_fetch(remote.get(), &refspecs, &options, "kgate: read bot branch") != 0)
    return Error::infrastructure(git_error_text(what + " failed"));
  git_oid oid;
  if (git_reference_name_to_id(&oid, repo.get(), local.c_str()) != 0)
    return Error::infrastructure(what + " brought nothing");
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, &oid);
  return std::optional<std::string>(std::string(hex));
}

}  // namespace kgate::bot
