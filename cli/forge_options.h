#pragma once
// The command-line options every publishing subcommand shares (gate, sweep,
// optimize, prs): which forge, which repository, where local state lives.
// See bot/forge_config.h for defaults and the environment variables.
#include <CLI/CLI.hpp>

#include "bot/forge_config.h"

namespace kgate::cli {

// `repo_options`: also declare --repo and --state-dir (subcommands that have
// their own, like optimize and sweep, copy theirs into the config instead).
void add_forge_options(CLI::App& app, bot::ForgeConfig& config, bool repo_options = true);

}  // namespace kgate::cli
