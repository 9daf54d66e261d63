#include "bot/baseline_branch.h"

#include <algorithm>
#include <cctype>

#include "core/file_util.h"
#include "core/redact.h"
#include "gate/git_branch_writer.h"
#include "gate/git_remote_branch.h"
#include "gate/git_repository.h"

namespace kgate::bot {

Result<BaselinePublication> publish_baselines(Forge& forge, const std::filesystem::path& repo_dir,
                                              const std::filesystem::path& folder,
                                              const std::string& branch) {
  std::error_code ec;
  BaselinePublication out;
  if (!std::filesystem::exists(folder, ec)) return out;  // nothing was recorded
  if (!std::filesystem::is_directory(folder, ec))
    return Error::bad_input("--baselines " + folder.string() + ": not a folder");
  std::string restored_from;
  if (Result<std::string> text = read_file(folder / kRestoredFromFile); text.ok()) {
    restored_from = *text;
    while (!restored_from.empty() && std::isspace(static_cast<unsigned char>(restored_from.back())))
      restored_from.pop_back();
  }
  std::vector<FileChange> files;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file() || it->path().filename() == kRestoredFromFile) continue;
    Result<std::string> text = read_file(it->path());
    if (!text.ok()) return text.error();
    files.push_back(
        {"baselines/" + it->path().lexically_relative(folder).generic_string(), redact(*text)});
  }
  if (ec) return Error::infrastructure("cannot read " + folder.string() + ": " + ec.message());
  std::sort(files.begin(), files.end(),
            [](const FileChange& a, const FileChange& b) { return a.path < b.path; });

  Result<BotIdentity> me = forge.identity();
  if (!me.ok()) return me.error();
  Result<std::optional<std::string>> tip = forge.branch_tip(repo_dir, branch);
  if (!tip.ok()) return tip.error().with_context("reading " + branch);
  if (!restored_from.empty()) {
    // Only what this job recorded: a file as it was copied is someone else's to change.
    auto repo = GitRepository::open(repo_dir);
    if (!repo.ok()) return repo.error();
    std::vector<FileChange> changed;
    for (FileChange& f : files) {
      Result<std::string> before = (*repo)->read_file_at(restored_from, f.path);
      if (before.ok() && *before == f.content) continue;
      if (*tip) {
        Result<std::string> now = (*repo)->read_file_at(**tip, f.path);
        if (now.ok() != before.ok() || (now.ok() && *now != *before))
          return Error::infrastructure(f.path + " changed on " + branch +
                                       " since this job copied " + restored_from.substr(0, 12) +
                                       "; record again to add to it");
      }
      changed.push_back(std::move(f));
    }
    files = std::move(changed);
  }
  out.files = files.size();
  if (files.empty()) return out;

  std::string message = "kgate: baselines (" + std::to_string(files.size()) + " file" +
                        (files.size() == 1 ? "" : "s") + ")\n";
  Result<BranchCommit> commit =
      write_branch(repo_dir, tip->value_or(""), branch, files, message, {me->name, me->email});
  if (!commit.ok()) return commit.error();
  out.changed = !*tip || commit->changes_base;
  if (!out.changed) {
    out.commit_sha = **tip;
    return out;
  }
  out.commit_sha = commit->commit_sha;
  if (Status s = forge.push_branch(repo_dir, branch, /*force=*/false); !s.ok())
    return s.error().with_context(branch +
                                  " moved while these baselines were recorded; run "
                                  "again to record on top of it");
  return out;
}

}  // namespace kgate::bot
