#pragma once
// Subcommands register themselves: one file per subcommand (cmd_<name>.cpp)
// defines a static CommandRegistration, and main.cpp wires them into CLI11.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate::cli {

// Declares the subcommand's options on `app` and returns what runs it.
// The returned function gives the process exit code.
using CommandSetup = std::function<std::function<int()>(CLI::App& app)>;

struct CommandInfo {
  std::string name;
  std::string description;
  CommandSetup setup;
};

std::vector<CommandInfo>& command_registry();

struct CommandRegistration {
  CommandRegistration(std::string name, std::string description, CommandSetup setup) {
    command_registry().push_back({std::move(name), std::move(description), std::move(setup)});
  }
};

// Prints "kgate: error: ..." on stderr and returns the error's exit code.
int fail(const Error& error);

}  // namespace kgate::cli
