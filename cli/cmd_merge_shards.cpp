// kgate merge-shards: what the shards of a sweep left (workflows/kgate-nightly.yml:
// one `kgate sweep --shard J/K --no-publish` per runner, each uploading its
// state folder and baselines) made into one state folder and one baselines
// folder, which one `kgate publish` turns into one set of pull requests and
// one commit on kgate/baselines.
//
//   SHARD/state/proposals/<kernel>.json  one per kernel: where shards of
//                                        different GPU models proposed for the
//                                        same kernel, the largest speedup
//   SHARD/state/episodes/<id>/           all (ids are unique), for the records
//   SHARD/baselines/<gpu>/<kernel>.json  all; a file two shards recorded holds
//                                        both histories, each entry once, by date
//   SHARD/baselines/KGATE_RESTORED_FROM  kept when every shard started from
//                                        the same commit (refused otherwise:
//                                        publishing relies on it)
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include "agent/persisted_json.h"
#include "bot/baseline_branch.h"
#include "bot/proposal_import.h"
#include "cli/command.h"
#include "core/file_util.h"
#include "core/log.h"
#include "core/text_table.h"
#include "gate/baseline_store.h"

namespace kgate::cli {
namespace {

namespace fs = std::filesystem;

struct MergeArgs {
  std::vector<std::string> shards;
  std::string out;
  std::string state = "state";          // each shard's state folder, relative to it
  std::string baselines = "baselines";  // each shard's baselines folder
};

std::string trimmed_text(const fs::path& file) {
  auto text = read_file(file);
  if (!text.ok()) return "";
  std::string s = *text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
  return s;
}

// Every regular file under `dir`, by its path relative to it.
std::map<std::string, fs::path> files_under(const fs::path& dir) {
  std::map<std::string, fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file())
      out[it->path().lexically_relative(dir).generic_string()] = it->path();
  return out;
}

// One history from the copies of a baseline file: every entry once (the
// copies share the history they were restored with), oldest first.
Result<BaselineFile> merge_histories(const std::vector<fs::path>& copies) {
  BaselineFile merged;
  std::set<std::string> seen;
  for (const fs::path& copy : copies) {
    auto loaded = load_baseline(copy);
    if (!loaded.ok()) return loaded.error();
    if (!*loaded) continue;
    const BaselineFile& f = **loaded;
    if (!merged.kernel.empty() && f.kernel != merged.kernel)
      return Error::bad_input(copy.string() + " holds kernel '" + f.kernel + "', another copy '" +
                              merged.kernel + "'");
    merged.kernel = f.kernel;
    merged.gpu = f.gpu;
    for (const BaselineEntry& e : f.history)
      if (seen.insert(e.to_json().dump()).second) merged.history.push_back(e);
  }
  std::stable_sort(merged.history.begin(), merged.history.end(),
                   [](const BaselineEntry& a, const BaselineEntry& b) {
                     return a.environment.date < b.environment.date;
                   });
  constexpr size_t kMaxHistory = 500;  // as append_baseline keeps
  if (merged.history.size() > kMaxHistory)
    merged.history.erase(merged.history.begin(),
                         merged.history.end() - static_cast<long>(kMaxHistory));
  return merged;
}

Status merge_baselines(const std::vector<fs::path>& shards, const MergeArgs& args,
                       const fs::path& out, size_t* files) {
  std::map<std::string, std::vector<fs::path>> copies;  // relative path -> its copies
  std::map<std::string, std::string> restored;          // shard -> commit
  size_t with_baselines = 0;
  for (const fs::path& shard : shards) {
    const fs::path dir = shard / args.baselines;
    if (!fs::is_directory(dir)) continue;
    ++with_baselines;
    restored[shard.string()] = trimmed_text(dir / bot::kRestoredFromFile);
    for (const auto& [rel, path] : files_under(dir))
      if (fs::path(rel).filename() != bot::kRestoredFromFile) copies[rel].push_back(path);
  }
  std::set<std::string> commits;
  for (const auto& [shard, commit] : restored) commits.insert(commit);
  if (commits.size() > 1) {
    std::string which;
    for (const auto& [shard, commit] : restored)
      which += "\n  " + shard + ": " + (commit.empty() ? "(none)" : commit.substr(0, 12));
    return Error::bad_input(
        "the shards started from different kgate/baselines commits, so what each recorded cannot "
        "be told from what it copied:" +
        which + "\nstart every shard from one commit (the nightly template's plan job does)");
  }
  const fs::path dir = out / args.baselines;
  if (with_baselines > 0 && !commits.begin()->empty())
    KGATE_RETURN_IF_ERROR(write_file_atomic(dir / bot::kRestoredFromFile, *commits.begin() + "\n"));
  for (const auto& [rel, paths] : copies) {
    std::set<std::string> texts;
    for (const fs::path& p : paths) {
      auto t = read_file(p);
      if (!t.ok()) return t.error();
      texts.insert(*t);
    }
    if (texts.size() == 1) {
      KGATE_RETURN_IF_ERROR(write_file_atomic(dir / rel, *texts.begin()));
    } else {
      auto merged = merge_histories(paths);
      if (!merged.ok()) return merged.error().with_context(rel);
      KGATE_RETURN_IF_ERROR(save_baseline(dir / rel, *merged));
      progress("baselines: " + rel + ": " + std::to_string(paths.size()) +
               " shards' histories merged (" + std::to_string(merged->history.size()) +
               " entries)");
    }
    ++*files;
  }
  return {};
}

double proposal_speedup(const nlohmann::json& proposal) {
  auto it = proposal.find("speedup_geomean");
  return it != proposal.end() && it->is_number() ? it->get<double>() : 0;
}

int run(const MergeArgs& args) {
  if (args.out.empty()) return fail(Error::bad_input("--out DIR: where the merged folders go"));
  std::vector<fs::path> shards;
  for (const std::string& s : args.shards) {
    if (!fs::is_directory(s)) return fail(Error::bad_input(s + ": not a folder"));
    shards.push_back(s);
  }
  std::sort(shards.begin(), shards.end());  // the same result in whatever order they are named
  const fs::path out = args.out;
  const fs::path state = out / args.state;
  std::error_code ec;
  fs::create_directories(state / "proposals", ec);

  // Episodes: every shard's, as they are (their ids are unique).
  for (const fs::path& shard : shards)
    for (const auto& [rel, path] : files_under(shard / args.state / "episodes")) {
      fs::create_directories((state / "episodes" / rel).parent_path(), ec);
      fs::copy_file(path, state / "episodes" / rel, fs::copy_options::overwrite_existing, ec);
      if (ec)
        return fail(Error::infrastructure("cannot copy " + path.string() + ": " + ec.message()));
    }

  // Proposals: one per kernel.
  struct Chosen {
    nlohmann::json proposal;
    fs::path from;
  };
  std::map<std::string, Chosen> chosen;
  std::map<std::string, std::vector<std::string>> passed_over;
  bool bad = false;
  for (const fs::path& shard : shards)
    for (const auto& [rel, path] : files_under(shard / args.state / "proposals")) {
      if (fs::path(rel).extension() != ".json" || rel.find('/') != std::string::npos) continue;
      auto proposal = bot::read_proposal_file(path);
      if (!proposal.ok()) {
        warn(proposal.error().message);
        bad = true;
        continue;
      }
      const std::string kernel = string_field(*proposal, "kernel");
      if (kernel.empty()) {
        warn(path.string() + ": a proposal without a kernel");
        bad = true;
        continue;
      }
      auto it = chosen.find(kernel);
      if (it == chosen.end()) {
        chosen[kernel] = {*proposal, path};
      } else if (proposal_speedup(*proposal) > proposal_speedup(it->second.proposal)) {
        passed_over[kernel].push_back(it->second.from.string());
        it->second = {*proposal, path};
      } else {
        passed_over[kernel].push_back(path.string());
      }
    }
  TextTable table({"kernel", "proposal", "speedup", "passed over"});
  for (const auto& [kernel, c] : chosen) {
    if (Status s =
            write_file_atomic(state / "proposals" / (kernel + ".json"), c.proposal.dump(2) + "\n");
        !s.ok())
      return fail(s.error());
    std::string others;
    for (const std::string& p : passed_over[kernel]) others += (others.empty() ? "" : ", ") + p;
    char speedup[32];
    std::snprintf(speedup, sizeof speedup, "%.3gx", proposal_speedup(c.proposal));
    table.add({kernel, c.from.string(), speedup, others.empty() ? "-" : others});
  }

  size_t baseline_files = 0;
  if (Status s = merge_baselines(shards, args, out, &baseline_files); !s.ok())
    return fail(s.error());
  progress("merged " + std::to_string(shards.size()) + " shards: " + std::to_string(chosen.size()) +
           " proposals, " + std::to_string(baseline_files) + " baseline files into " +
           out.string());
  if (!chosen.empty()) std::fputs(table.render().c_str(), stdout);
  return bad ? to_int(ExitCode::kBadInput) : 0;
}

CommandRegistration registration_merge_shards(
    "merge-shards",
    "Merge the state and baselines folders that the shards of a sweep left (kgate sweep "
    "--shard) into one, for one kgate publish",
    [](CLI::App& app) {
      auto args = std::make_shared<MergeArgs>();
      app.add_option("shards", args->shards, "Each shard's folder (an artifact of one runner)")
          ->required();
      app.add_option("--out", args->out, "Where the merged state and baselines folders go")
          ->required();
      app.add_option("--state", args->state, "Each shard's state folder, relative to it")
          ->capture_default_str();
      app.add_option("--baselines", args->baselines,
                     "Each shard's baselines folder, relative to it")
          ->capture_default_str();
      return [args] { return run(*args); };
    });

}  // namespace
}  // namespace kgate::cli
