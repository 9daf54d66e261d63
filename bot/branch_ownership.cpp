#include "bot/branch_ownership.h"

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <memory>

#include "bot/git_branch_writer.h"
#include "bot/untrusted_text.h"

namespace kgate::bot {
namespace {

template <class T>
using Owned = std::unique_ptr<T, void (*)(T*)>;

bool resolve(git_repository* repo, const std::string& rev, git_oid& oid) {
  git_object* obj = nullptr;
  if (git_revparse_single(&obj, repo, rev.c_str()) != 0) return false;
  git_object* commit = nullptr;
  bool ok = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) == 0;
  if (ok) oid = *git_object_id(commit);
  git_object_free(commit);
  git_object_free(obj);
  return ok;
}

}  // namespace

Result<std::vector<ForeignCommit>> foreign_commits(const std::filesystem::path& repo_dir,
                                                   const std::string& tip,
                                                   const std::vector<std::string>& bases,
                                                   const BotIdentity& identity) {
  ensure_libgit2();
  git_repository* raw_repo = nullptr;
  if (git_repository_open_ext(&raw_repo, repo_dir.c_str(), 0, nullptr) != 0)
    return Error::bad_input(
        git_error_text("cannot open the git repository at " + repo_dir.string()));
  Owned<git_repository> repo(raw_repo, git_repository_free);
  git_oid tip_oid;
  if (!resolve(repo.get(), tip, tip_oid))
    return Error::bad_input(git_error_text("unknown revision '" + tip + "'"));
  git_revwalk* raw_walk = nullptr;
  if (git_revwalk_new(&raw_walk, repo.get()) != 0)
    return Error::infrastructure(git_error_text("cannot walk the history of " + tip));
  Owned<git_revwalk> walk(raw_walk, git_revwalk_free);
  git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME);
  if (git_revwalk_push(walk.get(), &tip_oid) != 0)
    return Error::infrastructure(git_error_text("cannot walk the history of " + tip));
  for (const std::string& base : bases) {
    git_oid oid;
    if (!base.empty() && resolve(repo.get(), base, oid)) git_revwalk_hide(walk.get(), &oid);
  }
  std::vector<ForeignCommit> out;
  git_oid oid;
  while (git_revwalk_next(&oid, walk.get()) == 0) {
    git_commit* raw_commit = nullptr;
    if (git_commit_lookup(&raw_commit, repo.get(), &oid) != 0)
      return Error::infrastructure(git_error_text("cannot read a commit of " + tip));
    Owned<git_commit> commit(raw_commit, git_commit_free);
    const git_signature* author = git_commit_author(commit.get());
    std::string email = author && author->email ? author->email : "";
    if (identity.is_author_email(email)) continue;
    char hex[GIT_OID_HEXSZ + 1] = {};
    git_oid_tostr(hex, sizeof hex, &oid);
    out.push_back({hex, author && author->name ? author->name : "", email});
  }
  return out;
}

std::string describe_authors(const std::vector<ForeignCommit>& commits) {
  std::vector<std::string> names;
  for (const ForeignCommit& c : commits) {
    std::string login = login_from_noreply_email(c.author_email);
    bool plain = !login.empty() && std::all_of(login.begin(), login.end(), [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '[' || ch == ']';
    });
    // Names are whatever the committer's git says: shown, never interpreted.
    std::string who = plain                    ? "@" + login
                      : !c.author_name.empty() ? neutralize_untrusted_line(c.author_name)
                                               : c.sha.substr(0, 12);
    if (std::find(names.begin(), names.end(), who) == names.end()) names.push_back(who);
  }
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

}  // namespace kgate::bot
