#pragma once
// Real git repositories for the gate's end-to-end tests, made with libgit2:
// write files, commit everything, get the commit id back.
#include <git2.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace kgate::testing {

// Invariant: path() holds a non-bare repository with a working tree.
class GitFixture {
 public:
  explicit GitFixture(const std::filesystem::path& path);
  ~GitFixture();
  GitFixture(const GitFixture&) = delete;
  GitFixture& operator=(const GitFixture&) = delete;

  void write(const std::string& relative, const std::string& content);
  void remove(const std::string& relative);
  // Stages every file and commits on HEAD; returns the commit id.
  std::string commit(const std::string& message);
  // Points a branch at a commit (for revisions by name).
  void branch(const std::string& name, const std::string& commit);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  ::git_repository* repo_ = nullptr;
};

namespace git_fixture_detail {

inline void check(int rc, const char* what) {
  if (rc != 0) {
    const git_error* e = git_error_last();
    throw std::runtime_error(std::string(what) + ": " +
                             (e && e->message ? e->message : "libgit2 error"));
  }
}

}  // namespace git_fixture_detail

inline GitFixture::GitFixture(const std::filesystem::path& path) : path_(path) {
  git_libgit2_init();
  git_fixture_detail::check(git_repository_init(&repo_, path.c_str(), 0), "git init");
}

inline GitFixture::~GitFixture() {
  git_repository_free(repo_);
  git_libgit2_shutdown();
}

inline void GitFixture::write(const std::string& relative, const std::string& content) {
  std::filesystem::path p = path_ / relative;
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << content;
}

inline void GitFixture::remove(const std::string& relative) {
  std::filesystem::remove(path_ / relative);
}

inline std::string GitFixture::commit(const std::string& message) {
  git_index* index = nullptr;
  git_fixture_detail::check(git_repository_index(&index, repo_), "index");
  git_fixture_detail::check(
      git_index_add_all(index, nullptr, GIT_INDEX_ADD_DEFAULT, nullptr, nullptr), "add all");
  git_fixture_detail::check(git_index_update_all(index, nullptr, nullptr, nullptr), "update all");
  git_fixture_detail::check(git_index_write(index), "write index");
  git_oid tree_id, commit_id;
  git_fixture_detail::check(git_index_write_tree(&tree_id, index), "write tree");
  git_index_free(index);
  git_tree* tree = nullptr;
  git_fixture_detail::check(git_tree_lookup(&tree, repo_, &tree_id), "tree lookup");
  git_signature* sig = nullptr;
  git_fixture_detail::check(git_signature_now(&sig, "kgate test", "test@kgate.invalid"),
                            "signature");
  git_commit* parent = nullptr;
  git_object* head = nullptr;
  int parents = 0;
  if (git_revparse_single(&head, repo_, "HEAD") == 0) {
    git_fixture_detail::check(
        git_object_peel(reinterpret_cast<git_object**>(&parent), head, GIT_OBJECT_COMMIT), "peel");
    git_object_free(head);
    parents = 1;
  }
  const git_commit* parent_list[] = {parent};
  git_fixture_detail::check(
      git_commit_create(&commit_id, repo_, "HEAD", sig, sig, nullptr, message.c_str(), tree,
                        parents, parents ? parent_list : nullptr),
      "commit");
  if (parent) git_commit_free(parent);
  git_signature_free(sig);
  git_tree_free(tree);
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, &commit_id);
  return hex;
}

inline void GitFixture::branch(const std::string& name, const std::string& commit) {
  git_oid oid;
  git_fixture_detail::check(git_oid_fromstr(&oid, commit.c_str()), "oid");
  git_commit* c = nullptr;
  git_fixture_detail::check(git_commit_lookup(&c, repo_, &oid), "lookup");
  git_reference* ref = nullptr;
  git_fixture_detail::check(git_branch_create(&ref, repo_, name.c_str(), c, 1), "branch");
  git_reference_free(ref);
  git_commit_free(c);
}

}  // namespace kgate::testing
