#pragma once
// The command-line options every publishing subcommand shares (gate, sweep,
// optimize, prs): which forge, which repository, where local state lives.
// See bot/forge_config.h for defaults and the environment variables.
#include <CLI/CLI.hpp>

#include "bot/forge_config.h"

namespace kgate::cli {

void add_forge_options(CLI::App& app, bot::ForgeConfig& config);

}  // namespace kgate::cli
