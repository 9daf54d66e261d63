#include "gate/git_branch_writer.h"

#include "gate/git_handle.h"

namespace kgate {
namespace {

using Repo = GitRepoHandle;
using Object = GitObjectHandle;
using Commit = GitCommitHandle;
using Tree = GitTreeHandle;
using TreeBuilder = GitTreeBuilderHandle;
using Signature = GitSignatureHandle;

Result<git_oid> resolve_commit(git_repository* repo, const std::string& rev, Commit& commit) {
  Object obj;
  if (git_revparse_single(obj.out(), repo, rev.c_str()) != 0)
    return Error::bad_input(git_error_text("unknown revision '" + rev + "'"));
  Object peeled;
  if (git_object_peel(peeled.out(), obj.get(), GIT_OBJECT_COMMIT) != 0)
    return Error::bad_input(git_error_text("revision '" + rev + "' is not a commit"));
  git_oid oid = *git_object_id(peeled.get());
  if (git_commit_lookup(commit.out(), repo, &oid) != 0)
    return Error::infrastructure(git_error_text("cannot read commit " + oid_hex(oid)));
  return oid;
}

// Returns the id of `tree` (may be null: an empty folder) with `path` set to `blob`.
Result<git_oid> tree_with_file(git_repository* repo, const git_tree* tree, const std::string& path,
                               const git_oid& blob) {
  TreeBuilder builder;
  if (git_treebuilder_new(builder.out(), repo, tree) != 0)
    return Error::infrastructure(git_error_text("cannot build a git tree"));
  size_t slash = path.find('/');
  if (slash == std::string::npos) {
    if (git_treebuilder_insert(nullptr, builder.get(), path.c_str(), &blob, GIT_FILEMODE_BLOB) != 0)
      return Error::bad_input(git_error_text("cannot write '" + path + "' into the git tree"));
  } else {
    std::string dir = path.substr(0, slash);
    Tree subtree;
    if (tree) {
      const git_tree_entry* entry = git_tree_entry_byname(tree, dir.c_str());
      if (entry && git_tree_entry_type(entry) == GIT_OBJECT_TREE)
        git_tree_lookup(subtree.out(), repo, git_tree_entry_id(entry));
    }
    Result<git_oid> sub = tree_with_file(repo, subtree.get(), path.substr(slash + 1), blob);
    if (!sub.ok()) return sub.error();
    if (git_treebuilder_insert(nullptr, builder.get(), dir.c_str(), &*sub, GIT_FILEMODE_TREE) != 0)
      return Error::bad_input(
          git_error_text("cannot write folder '" + dir + "' into the git tree"));
  }
  git_oid out;
  if (git_treebuilder_write(&out, builder.get()) != 0)
    return Error::infrastructure(git_error_text("cannot write a git tree"));
  return out;
}

}  // namespace

Result<BranchCommit> write_branch(const std::filesystem::path& repo_dir,
                                  const std::string& base_rev, const std::string& branch,
                                  const std::vector<FileChange>& files, const std::string& message,
                                  const GitAuthor& author) {
  Repo repo;
  KGATE_RETURN_IF_ERROR(open_git_repository(repo_dir, repo));
  Commit base;
  Tree tree;
  git_oid tree_oid;
  BranchCommit result;
  if (base_rev.empty()) {
    // A root commit: the branch starts its own history (kgate/baselines).
    TreeBuilder empty;
    if (git_treebuilder_new(empty.out(), repo.get(), nullptr) != 0 ||
        git_treebuilder_write(&tree_oid, empty.get()) != 0 ||
        git_tree_lookup(tree.out(), repo.get(), &tree_oid) != 0)
      return Error::infrastructure(git_error_text("cannot write an empty git tree"));
  } else {
    Result<git_oid> base_oid = resolve_commit(repo.get(), base_rev, base);
    if (!base_oid.ok()) return base_oid.error();
    if (git_commit_tree(tree.out(), base.get()) != 0)
      return Error::infrastructure(git_error_text("cannot read the tree of " + base_rev));
    tree_oid = *git_tree_id(tree.get());
    result.base_sha = oid_hex(*base_oid);
  }
  for (const FileChange& f : files) {
    if (f.path.empty() || f.path[0] == '/' || f.path.find("..") != std::string::npos)
      return Error::bad_input("refusing to write '" + f.path + "': not a repository-relative path");
    git_oid blob;
    if (git_blob_create_from_buffer(&blob, repo.get(), f.content.data(), f.content.size()) != 0)
      return Error::infrastructure(git_error_text("cannot store '" + f.path + "' in git"));
    Tree current;
    if (git_tree_lookup(current.out(), repo.get(), &tree_oid) != 0)
      return Error::infrastructure(git_error_text("cannot read a git tree"));
    Result<git_oid> next = tree_with_file(repo.get(), current.get(), f.path, blob);
    if (!next.ok()) return next.error();
    tree_oid = *next;
  }
  result.changes_base = !git_oid_equal(&tree_oid, git_tree_id(tree.get()));

  Tree new_tree;
  Signature sig;
  if (git_tree_lookup(new_tree.out(), repo.get(), &tree_oid) != 0 ||
      git_signature_now(sig.out(), author.name.c_str(), author.email.c_str()) != 0)
    return Error::infrastructure(git_error_text("cannot prepare the commit"));
  git_oid commit_oid;
  const git_commit* parents[] = {base.get()};
  if (git_commit_create(&commit_oid, repo.get(), nullptr, sig.get(), sig.get(), "UTF-8",
                        message.c_str(), new_tree.get(), base.get() ? 1 : 0, parents) != 0)
    return Error::infrastructure(git_error_text("cannot create the commit"));
  GitReferenceHandle ref;
  std::string ref_name = "refs/heads/" + branch;
  if (git_reference_create(ref.out(), repo.get(), ref_name.c_str(), &commit_oid, /*force=*/1,
                           "kgate: candidate") != 0)
    return Error::bad_input(git_error_text("cannot move branch '" + branch + "'"));
  result.commit_sha = oid_hex(commit_oid);
  return result;
}

}  // namespace kgate
