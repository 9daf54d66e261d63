#include "gate/git_handle.h"

#include "core/redact.h"

namespace kgate {

void ensure_libgit2() {
  static const int once = git_libgit2_init();
  (void)once;
}

Status open_git_repository(const std::filesystem::path& dir, GitRepoHandle& repo) {
  ensure_libgit2();
  if (git_repository_open_ext(repo.out(), dir.c_str(), 0, nullptr) != 0)
    return Error::bad_input(git_error_text("cannot open the git repository at " + dir.string()));
  return {};
}

std::string git_error_text(const std::string& what) {
  const git_error* e = git_error_last();
  return redact(what + (e && e->message ? std::string(" (libgit2: ") + e->message + ")" : ""));
}

std::string oid_hex(const git_oid& oid) {
  char buf[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(buf, sizeof buf, &oid);
  return buf;
}

int offer_git_token(git_credential** out, const char* /*url*/, const char* /*user*/,
                    unsigned int allowed, void* payload) {
  auto* offer = static_cast<GitTokenOffer*>(payload);
  if (!offer->password || offer->password->empty() || ++offer->calls > 1 ||
      !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT))
    return GIT_EAUTH;
  return git_credential_userpass_plaintext_new(out, "x-access-token", offer->password->c_str());
}

}  // namespace kgate
