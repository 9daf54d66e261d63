#pragma once
// Process exit codes, the same for every subcommand.
namespace kgate {

enum class ExitCode : int {
  kSuccess = 0,         // everything ran and passed
  kCheckFailed = 1,     // a gate or correctness check failed
  kBadInput = 2,        // bad usage or bad input (manifest, config, revision)
  kInfrastructure = 3,  // compiler missing, GPU lost, network down
};

inline int to_int(ExitCode code) {
  return static_cast<int>(code);
}

}  // namespace kgate
