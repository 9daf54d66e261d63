// kgate prs: the pull requests kgate has opened on the local forge (files
// under the state directory), and `--ignore N --kernel K`: the `/kgate
// ignore` command on any forge (bot/pull_request_publisher.h).
#include <cstdio>

#include <nlohmann/json.hpp>

#include "bot/forge_config.h"
#include "bot/local_forge.h"
#include "bot/pull_request_publisher.h"
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
  int ignore = 0;
  std::string kernel;
  std::string by;
};

int run_ignore(const PrsOptions& options) {
  if (options.kernel.empty())
    return fail(Error::bad_input("--ignore needs --kernel: the kernel whose pull request it is"));
  auto forge = bot::make_forge(options.forge);
  if (!forge.ok()) return fail(forge.error().with_context("--forge"));
  bot::PullRequestPublisher publisher(**forge, options.forge.repo_dir);
  if (Status s = publisher.ignore(options.kernel, options.ignore, options.by); !s.ok())
    return fail(s.error());
  std::printf("closed #%d: kgate proposes nothing for %s until `/kgate optimize %s`\n",
              options.ignore, options.kernel.c_str(), options.kernel.c_str());
  return 0;
}

int run_prs(const PrsOptions& options) {
  if (options.ignore > 0) return run_ignore(options);
  bot::ForgeConfig config = options.forge;
  if (config.kind.empty() && config.github_repo.empty()) config.kind = "local";
  if (config.kind != "local")
    return fail(Error::bad_input(
        "kgate prs lists the local forge's pull requests; on GitHub, look for the label 'kgate' "
        "(use --forge local or leave --forge out)"));
  bot::LocalForge forge(config.repo_dir, config.state_dir.empty()
                                             ? default_state_dir(config.repo_dir)
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

CommandRegistration registration_prs(
    "prs",
    "List the pull requests kgate opened on the local forge; "
    "--ignore one on any forge",
    [](CLI::App& app) {
      auto options = std::make_shared<PrsOptions>();
      add_forge_options(app, options->forge);
      app.add_flag("--all", options->all, "Closed ones too");
      app.add_flag("--json", options->json, "JSON on stdout");
      app.add_option("--show", options->show, "Print one pull request (its Markdown)");
      app.add_option("--ignore", options->ignore,
                     "`/kgate ignore`: close this pull request and "
                     "propose nothing for its kernel until a new "
                     "`/kgate optimize` (any forge)");
      app.add_option("--kernel", options->kernel, "With --ignore: the pull request's kernel");
      app.add_option("--by", options->by, "With --ignore: the GitHub login who asked");
      return [options] { return run_prs(*options); };
    });

}  // namespace
}  // namespace kgate::cli
