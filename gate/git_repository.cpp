#include "gate/git_repository.h"

#include "gate/git_handle.h"

#include <fstream>

namespace kgate {
namespace {

std::string last_git_error() {
  const git_error* e = git_error_last();
  return e && e->message ? e->message : "unknown libgit2 error";
}

using TreeHandle = GitTreeHandle;
using CommitHandle = GitCommitHandle;

Status commit_tree(git_repository* repo, const std::string& commit, TreeHandle& tree) {
  git_oid oid;
  if (git_oid_fromstr(&oid, commit.c_str()) != 0)
    return Error::bad_input("not a commit id: " + commit);
  CommitHandle c;
  if (git_commit_lookup(c.out(), repo, &oid) != 0)
    return Error::bad_input("no commit " + commit + ": " + last_git_error());
  if (git_commit_tree(tree.out(), c.get()) != 0)
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
  ensure_libgit2();
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, path.c_str(), 0, nullptr) != 0) {
    std::string why = last_git_error();
    return Error::bad_input("not a git repository: " + path.string() + " (" + why + ")");
  }
  return std::unique_ptr<GitRepository>(new GitRepository(repo));
}

GitRepository::~GitRepository() {
  git_repository_free(repo_);
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
  std::string hex = oid_hex(*git_object_id(commit));
  git_object_free(commit);
  return hex;
}

Result<std::string> GitRepository::read_file_at(const std::string& revision,
                                                const std::string& path) {
  GitObjectHandle obj;
  std::string spec = revision + ":" + path;
  if (git_revparse_single(obj.out(), repo_, spec.c_str()) != 0 ||
      git_object_type(obj.get()) != GIT_OBJECT_BLOB)
    return Error::bad_input(
        git_error_text("no file '" + path + "' at revision '" + revision + "'"));
  auto* blob = reinterpret_cast<git_blob*>(obj.get());
  return std::string(static_cast<const char*>(git_blob_rawcontent(blob)),
                     static_cast<size_t>(git_blob_rawsize(blob)));
}

Result<std::string> GitRepository::current_branch() {
  if (git_repository_head_detached(repo_) == 1)
    return Error::bad_input("the repository at " + workdir().string() +
                            " has a detached HEAD: check out the branch pull requests should "
                            "target, or name it with --base-branch");
  GitReferenceHandle head;
  if (git_repository_head(head.out(), repo_) != 0)
    return Error::bad_input(
        git_error_text("the repository at " + workdir().string() + " has no commit on HEAD yet"));
  return std::string(git_reference_shorthand(head.get()));
}

Result<std::vector<GitCommitInfo>> GitRepository::commits_since(
    const std::string& tip, const std::vector<std::string>& hidden) {
  Result<std::string> tip_sha = resolve(tip);
  if (!tip_sha.ok()) return tip_sha.error();
  git_oid tip_oid;
  git_oid_fromstr(&tip_oid, tip_sha->c_str());
  GitRevwalkHandle walk;
  if (git_revwalk_new(walk.out(), repo_) != 0)
    return Error::infrastructure(git_error_text("cannot walk the history of " + tip));
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (git_revwalk_push(walk.get(), &tip_oid) != 0)
    return Error::infrastructure(git_error_text("cannot walk the history of " + tip));
  for (const std::string& base : hidden) {
    if (base.empty()) continue;
    Result<std::string> sha = resolve(base);
    git_oid oid;
    if (sha.ok() && git_oid_fromstr(&oid, sha->c_str()) == 0) git_revwalk_hide(walk.get(), &oid);
  }
  std::vector<GitCommitInfo> out;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    GitCommitHandle commit;
    if (git_commit_lookup(commit.out(), repo_, &oid) != 0)
      return Error::infrastructure(git_error_text("cannot read a commit of " + tip));
    const git_signature* author = git_commit_author(commit.get());
    out.push_back({oid_hex(oid), author && author->name ? author->name : "",
                   author && author->email ? author->email : ""});
  }
  return out;
}

Status GitRepository::materialize(const std::string& commit, const std::filesystem::path& folder) {
  TreeHandle tree;
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, commit, tree));
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) return Error::infrastructure("cannot create " + folder.string() + ": " + ec.message());
  WalkState state{repo_, folder, ""};
  if (git_tree_walk(tree.get(), GIT_TREEWALK_PRE, write_entry, &state) != 0)
    return Error::infrastructure(state.error.empty() ? last_git_error() : state.error);
  return {};
}

Result<std::set<std::string>> GitRepository::changed_paths(const std::string& base_commit,
                                                           const std::string& head_commit) {
  TreeHandle base, head;
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, base_commit, base));
  KGATE_RETURN_IF_ERROR(commit_tree(repo_, head_commit, head));
  git_diff* diff = nullptr;
  if (git_diff_tree_to_tree(&diff, repo_, base.get(), head.get(), nullptr) != 0)
    return Error::infrastructure("cannot diff " + base_commit + ".." + head_commit + ": " +
                                 last_git_error());
  std::set<std::string> paths;
  git_diff_foreach(diff, collect_delta, nullptr, nullptr, nullptr, &paths);
  git_diff_free(diff);
  return paths;
}

std::string libgit2_version() {
  int major = 0, minor = 0, rev = 0;
  git_libgit2_version(&major, &minor, &rev);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(rev);
}

}  // namespace kgate
