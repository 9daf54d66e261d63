#pragma once
// libgit2 for the files of kgate's git layer (gate/git_*.cpp and
// gate/pull_head_fetch.cpp): the one folder that includes <git2.h>
// (HACKING.md, "The folders"). Code outside gate/ uses the git_*.h headers,
// which expose no libgit2 type.
#include <git2.h>

#include <filesystem>
#include <string>

#include "core/status.h"

namespace kgate {

// Invariant: owns one libgit2 object (or nothing) and frees it exactly once.
template <class T, void (*Free)(T*)>
class GitHandle {
 public:
  GitHandle() = default;
  explicit GitHandle(T* p) : p_(p) {}
  GitHandle(const GitHandle&) = delete;
  GitHandle& operator=(const GitHandle&) = delete;
  ~GitHandle() {
    if (p_) Free(p_);
  }
  T** out() { return &p_; }
  T* get() const { return p_; }

 private:
  T* p_ = nullptr;
};

using GitRepoHandle = GitHandle<git_repository, git_repository_free>;
using GitObjectHandle = GitHandle<git_object, git_object_free>;
using GitCommitHandle = GitHandle<git_commit, git_commit_free>;
using GitTreeHandle = GitHandle<git_tree, git_tree_free>;
using GitTreeBuilderHandle = GitHandle<git_treebuilder, git_treebuilder_free>;
using GitSignatureHandle = GitHandle<git_signature, git_signature_free>;
using GitReferenceHandle = GitHandle<git_reference, git_reference_free>;
using GitRemoteHandle = GitHandle<git_remote, git_remote_free>;
using GitRevwalkHandle = GitHandle<git_revwalk, git_revwalk_free>;
using GitDiffHandle = GitHandle<git_diff, git_diff_free>;

// Initialises libgit2 once for the process (never shut down: handles may
// outlive any one caller).
void ensure_libgit2();

// "what (libgit2: <last error>)", redacted (core/redact.h): libgit2's
// messages can carry a remote's URL.
std::string git_error_text(const std::string& what);

// 40 hex digits.
std::string oid_hex(const git_oid& oid);

// Opens the repository at `dir` (or above it) into `repo`; libgit2 is
// initialised first.
Status open_git_repository(const std::filesystem::path& dir, GitRepoHandle& repo);

// Offers `password` once as user "x-access-token" over HTTPS (what GitHub
// expects for App installation tokens and accepts for personal tokens).
// libgit2 asks again after a refusal; a second ask means the token was
// refused, and an empty password offers nothing.
// Invariant: `calls` counts the asks since the last reset.
struct GitTokenOffer {
  const std::string* password = nullptr;
  int calls = 0;
};
// A git_credential_acquire_cb; `payload` is a GitTokenOffer.
int offer_git_token(git_credential** out, const char* url, const char* user, unsigned int allowed,
                    void* payload);

}  // namespace kgate
