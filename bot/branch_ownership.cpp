#include "bot/branch_ownership.h"

#include <algorithm>
#include <cctype>

#include "bot/untrusted_text.h"
#include "gate/git_repository.h"

namespace kgate::bot {

Result<std::vector<ForeignCommit>> foreign_commits(const std::filesystem::path& repo_dir,
                                                   const std::string& tip,
                                                   const std::vector<std::string>& bases,
                                                   const BotIdentity& identity) {
  auto repo = GitRepository::open(repo_dir);
  if (!repo.ok()) return repo.error();
  Result<std::vector<GitCommitInfo>> commits = (*repo)->commits_since(tip, bases);
  if (!commits.ok()) return commits.error();
  std::vector<ForeignCommit> out;
  for (const GitCommitInfo& c : *commits)
    if (!identity.is_author_email(c.author_email))
      out.push_back({c.sha, c.author_name, c.author_email});
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
