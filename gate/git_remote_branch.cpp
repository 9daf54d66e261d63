#include "gate/git_remote_branch.h"

#include "core/redact.h"
#include "gate/git_handle.h"

namespace kgate {
namespace {}  // namespace

std::string remote_branch_ref(const std::string& branch) {
  return "refs/kgate/remote/" + branch;
}

Result<std::optional<std::string>> fetch_remote_branch(const std::filesystem::path& repo_dir,
                                                       const std::string& remote_url,
                                                       const std::string& branch,
                                                       const std::string& password) {
  register_secret(password);
  GitRepoHandle repo;
  KGATE_RETURN_IF_ERROR(open_git_repository(repo_dir, repo));
  GitRemoteHandle remote;
  if (git_remote_create_anonymous(remote.out(), repo.get(), remote_url.c_str()) != 0)
    return Error::bad_input(git_error_text("bad git remote '" + redact(remote_url) + "'"));
  const std::string what = "reading branch '" + branch + "' of " + redact(remote_url);

  GitTokenOffer state{&password};
  git_remote_callbacks callbacks;
  git_remote_init_callbacks(&callbacks, GIT_REMOTE_CALLBACKS_VERSION);
  callbacks.credentials = offer_git_token;
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
    GitReferenceHandle stale;
    if (git_reference_lookup(stale.out(), repo.get(), local.c_str()) == 0)
      git_reference_delete(stale.get());
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
  return std::optional<std::string>(oid_hex(oid));
}

}  // namespace kgate
