#include "gate/git_tree.h"

#include <git2.h>

#include <fstream>

namespace kgate {
namespace {

std::string last_git_error() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

// Owns one libgit2 object handle.
template <class T, void (*Free)(T*)>
struct GitHandle {
  T* p = nullptr;
  ~GitHandle() {
    if (p) Free(p);
  }
};

using TreeHandle = GitHandle<git_tree, git_tree_free>;
using CommitHandle = GitHandle<git_commit, git_commit_free>;

Status commit_tree(git_repository* repo, const std::string& commit, TreeHandle& tree) {
  git_oid oid;
  if (git_oid_fromstr(&oid, commit.c_str()) != 0)
    return Error::bad_input("not a commit id: " + commit);
  CommitHandle c;
  if (git_commit_lookup(&c.p, repo, &oid) != 0)
    return Error::bad_input("no commit " + commit + ": " + last_git_error());
  if (git_commit_tree(&tree.p, c.p) != 0)
    return Error::infrastructure("cannot read the tree of " + commit + ": " + last_git_error());
  return {};
}

struct WalkState {
  git_repository* repo;
  std::filesystem::path folder;
  std::string error;
};

int write_entry(const char* root, const git_tree_entry* entry, void* payload) {
  auto* state = static_cast<WalkState*>(payload);
  git_object_t type = git_tree_entry_type(entry);
  if (type != GIT_OBJECT_BLOB) return 0;  // trees are walked; submodules are skipped
  std::filesystem::path path = state->folder / root / git_tree_entry_name(entry);
  git_blob* blob = nullptr;
  if (git_blob_lookup(&blob, state->repo, git_tree_entry_id(entry)) != 0) {
    state->error = "cannot read " + path.string() + ": " + last_git_error();
    return -1;
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  const char* data = static_cast<const char*>(git_blob_rawcontent(blob));
  auto size = static_cast<std::streamsize>(git_blob_rawsize(blob));
  bool ok;
  if (git_tree_entry_filemode(entry) == GIT_FILEMODE_LINK) {
    std::filesystem::create_symlink(std::string(data, size), path, ec);
    ok = !ec;
  } else {
    std::ofstream out(path, std::ios::binary);
    out.write(data, size);
    ok = static_cast<bool>(out);
  }
  git_blob_free(blob);
  if (!ok) {
    state->error = "cannot write " + path.string();
    return -1;
  }
  return 0;
}

int collect_delta(const git_diff_delta* delta, float, void* payload) {
  auto* paths = static_cast<std::set<std::string>*>(payload);
  if (delta->old_file.path) paths->insert(delta->old_file.path);
  if (delta->new_file.path) paths->insert(delta->new_file.path);
  return 0;
}

}  // namespace

Result<std::unique_ptr<GitRepository>> GitRepository::open(const std::filesystem::path& path) {
  git_libgit2_init();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), 0, nullptr) != 0) {
    std::string why = last_git_error();
    git_libgit2_shutdown();
    return Error::bad_input("not a git repository: " + path.string() + " (" + why + ")");
  }
  return std::unique_ptr<GitRepository>(new GitRepository(repo));
}

GitRepository::~GitRepository() {
  git_repository_free(repo_);
  git_libgit2_shutdown();
}

std::filesystem::path GitRepository::workdir() const {
  const char* w = git_repository_workdir(repo_);
  return w ? std::filesystem::path(w) : std::filesystem::path(git_repository_path(repo_));
}

Result<std::string> GitRepository::resolve(const std::string& revision) {
  if (revision.empty()) return Error::bad_input("empty revision");
  git_object* object = nullptr;
  if (git_revparse_single(&object, repo_, revision.c_str()) != 0)
    return Error::bad_input("revision '" + revision + "' not found in " + workdir().string() +
                            ": " + last_git_error());
  git_object* commit = nullptr;
  int rc = git_object_peel(&commit, object, GIT_OBJECT_COMMIT);
  git_object_free(object);
  if (rc != 0) return Error::bad_input("revision '" + revision + "' does not name a commit");
  char hex[GIT_OID_HEXSZ + 1] = {};
  git_oid_tostr(hex, sizeof hex, git_object_id(commit));
  git_object_free(commit);
  return std::string(hex);
}

Status GitRepository::materialize(const std::string& commit, const std::filesystem::path& folder) {
  TreeHandle tree;
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, commit, tree));
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error::infrastructure("cannot create " + folder.string() + ": " + ec.message());
  WalkState state{repo_, folder, ""};
  if (git_tree_walk(tree.p, GIT_TREEWALK_PRE, write_entry, &state) != 0)
    return Error::infrastructure(state.error.empty() ? last_git_error() : state.error);
  return {};
}

Result<std::set<std::string>> GitRepository::changed_paths(const std::string& base_commit,
                                                           const std::string& head_commit) {
  TreeHandle base, head;
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, base_commit, base));
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, head_commit, head));
  git_diff* diff = nullptr;
  if (git_diff_tree_to_tree(&diff, repo_, base.p, head.p, nullptr) != 0)
    return Error::infrastructure("cannot diff " + base_commit + ".." + head_commit + ": " +
                                 last_git_error());
  std::set<std::string> paths;
  git_diff_foreach(diff, collect_delta, nullptr, nullptr, nullptr, &paths);
  git_diff_free(diff);
  return paths;
}

}  // namespace kgate
