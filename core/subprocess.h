#pragma once
// Running other programs (compilers, workloads, agents) and running our own
// code in a forked child, both under a time limit. A child that crashes or
// hangs is reported, never propagated.
#include <atomic>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate {

struct CommandOptions {
  std::string cwd;                         // empty: inherit
  double timeout_s = 600;                  // killed (the whole process group) after this
  std::string stdin_text;                  // written to the child's stdin, then closed
  std::map<std::string, std::string> env;  // added to (or replacing in) the environment
  size_t max_output_bytes = 16 << 20;      // longer output keeps its tail
  // When set and it turns true, the child's process group is killed as at the
  // time limit (a service shutting down must not leave jobs running behind it).
  const std::atomic<bool>* cancel = nullptr;
  // For children that run code nobody reviewed (the webhook service's jobs):
  bool clean_env = false;        // the child gets `env` only, nothing of this process's
  bool close_other_fds = false;  // descriptors above stderr are closed in the child
  int landlock_ruleset_fd = -1;  // applied before exec (core/file_shield.h); failing that, exit 126
};

struct CommandOutcome {
  int exit_code = -1;  // valid when signal == 0 and !timed_out
  int signal = 0;      // the signal that ended it, if any
  bool timed_out = false;
  bool cancelled = false;  // killed because CommandOptions::cancel turned true
  std::string out;         // standard output
  std::string err;         // standard error
  double seconds = 0;

  bool succeeded() const { return !timed_out && signal == 0 && exit_code == 0; }
  // "exit code 2", "killed by signal 11 (Segmentation fault)", "timed out after 5 s".
  std::string describe(double timeout_s) const;
};

// Runs argv[0] (searched on PATH). Fails only when the program cannot be
// started; a non-zero exit is an outcome, not an error.
Result<CommandOutcome> run_command(const std::vector<std::string>& argv,
                                   const CommandOptions& options = {});

// Runs `body` in a forked child; its return value travels back through a pipe.
// Use it for code that may crash or hang (a kernel under test). The parent
// must not hold state that breaks across fork (a CUDA context, threads that
// hold locks the child needs).
struct ChildOutcome {
  bool completed = false;  // body returned and the child exited cleanly
  std::string payload;     // what body returned
  int exit_code = -1;
  int signal = 0;
  bool timed_out = false;
  std::string err_tail;  // the last lines the child wrote to stderr
  std::string describe(double timeout_s) const;
};
ChildOutcome run_in_child(const std::function<std::string()>& body, double timeout_s);

// Absolute path of a program on PATH, or empty.
std::string find_program(const std::string& name);

}  // namespace kgate
