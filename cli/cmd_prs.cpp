// kgate prs: the pull requests kgate has opened, on the configured forge.
// With the local forge (the default) they are files under the state
// directory; with GitHub, the open pull requests on kgate/optimize/* branches.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "bot/forge_config.h"
#include "bot/local_forge.h"
#include "cli/command.h"
#include "cli/forge_options.h"
#include "core/file_util.h"
#include "core/text_table.h"

namespace kgate::cli {
namespace {

struct PrsOptions {
  bot::ForgeConfig forge;
  bool all = false;
  bool json = false;
  int show = 0;
};

int run_prs(const PrsOptions& options) {
  bot::ForgeConfig config = options.forge;
  if (config.kind.empty() && config.github_repo.empty()) config.kind = "local";
  if (config.kind != "local")
    return fail(Error::bad_input(
        "kgate prs lists the local forge's pull requests; on GitHub, look for the label 'kgate' "
        "(use --forge local or leave --forge out)"));
  bot::LocalForge forge(config.repo_dir, config.state_dir.empty()
                                             ? bot::default_state_dir(config.repo_dir)
                                             : config.state_dir);
  Result<std::vector<bot::PullRequest>> prs = forge.all_pull_requests();
  if (!prs.ok()) return fail(prs.error());
  if (options.show > 0) {
    for (const auto& pr : *prs)
      if (pr.number == options.show) {
        Result<std::string> text = read_file(pr.url);
        if (!text.ok()) return fail(text.error());
        std::fputs(text->c_str(), stdout);
        return 0;
      }
    return fail(Error::bad_input("no local pull request #" + std::to_string(options.show)));
  }
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& pr : *prs)
      if (options.all || pr.state == "open")
        out.push_back({{"number", pr.number},
                       {"state", pr.state},
                       {"branch", pr.head_branch},
                       {"base", pr.base_branch},
                       {"title", pr.title},
                       {"labels", pr.labels},
                       {"file", pr.url}});
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  TextTable table({"#", "state", "branch", "title"});
  size_t shown = 0;
  for (const auto& pr : *prs) {
    if (!options.all && pr.state != "open") continue;
    table.add({std::to_string(pr.number), pr.state, pr.head_branch, pr.title});
    ++shown;
  }
  if (shown == 0) {
    std::printf("no %spull requests in %s\n", options.all ? "" : "open ",
                forge.state_dir().string().c_str());
    return 0;
  }
  std::fputs(table.render().c_str(), stdout);
  return 0;
}

CommandRegistration registration("prs", "List the pull requests kgate opened on the local forge",
                                 [](CLI::App& app) {
                                   auto options = std::make_shared<PrsOptions>();
                                   add_forge_options(app, options->forge);
                                   app.add_flag("--all", options->all, "Closed ones too");
                                   app.add_flag("--json", options->json, "JSON on stdout");
                                   app.add_option("--show", options->show,
                                                  "Print one pull request (its Markdown)");
                                   return [options] { return run_prs(*options); };
                                 });

}  // namespace
}  // namespace kgate::cli
