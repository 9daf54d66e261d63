// The kgate executable: git-style subcommands, each in its own cmd_*.cpp.
#include <algorithm>
#include <cstdio>

#include "cli/command.h"
#include "core/exit_code.h"
#include "core/log.h"
#include "core/version.h"

namespace kgate::cli {

std::vector<CommandInfo>& command_registry() {
  static std::vector<CommandInfo> registry;
  return registry;
}

int fail(const Error& error) {
  std::fprintf(stderr, "kgate: error: %s\n", error.message.c_str());
  return to_int(error.kind);
}

}  // namespace kgate::cli

int main(int argc, char** argv) {
  using namespace kgate::cli;
  CLI::App app{"kgate: a regression gate and optimizing bot for GPU kernels"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("kgate ") + kgate::kVersion);
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet, "No progress lines on stderr");
  auto& registry = command_registry();
  std::sort(registry.begin(), registry.end(),
            [](const CommandInfo& a, const CommandInfo& b) { return a.name < b.name; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> commands;
  for (const CommandInfo& info : registry) {
    CLI::App* sub = app.add_subcommand(info.name, info.description);
    commands.emplace_back(sub, info.setup(*sub));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    // CLI11 returns 0 for --help and --version; every usage error is exit code 2.
    return code == 0 ? 0 : kgate::to_int(kgate::ExitCode::kBadInput);
  }
  kgate::set_quiet(quiet);
  for (auto& [sub, run] : commands)
    if (sub->parsed()) return run();
  return kgate::to_int(kgate::ExitCode::kBadInput);
}
