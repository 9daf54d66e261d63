#pragma once
// Whose commits a bot branch holds. kgate rewrites kgate/optimize/<kernel>
// from the base on every new result; that is safe only while every commit on
// the branch that the base lacks is kgate's own. A maintainer who pushed a
// fix to the branch, or merged the base into it, owns the branch from then
// on: kgate leaves it alone until someone asks it to take the branch over
// (`/kgate rebase`).
#include <filesystem>
#include <string>
#include <vector>

#include "bot/bot_identity.h"
#include "core/status.h"

namespace kgate::bot {

struct ForeignCommit {
  std::string sha;
  std::string author_name;
  std::string author_email;
};

// The commits reachable from `tip` and from none of `bases` (revisions that
// do not resolve are skipped) whose author address is not kgate's
// (BotIdentity::is_author_email), newest first.
Result<std::vector<ForeignCommit>> foreign_commits(const std::filesystem::path& repo_dir,
                                                   const std::string& tip,
                                                   const std::vector<std::string>& bases,
                                                   const BotIdentity& identity);

// "@alice and Bob Smith": GitHub logins where the address is a GitHub
// no-reply address, names otherwise; each author once.
std::string describe_authors(const std::vector<ForeignCommit>& commits);

}  // namespace kgate::bot
