#include "core/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <sstream>

#include "core/file_shield.h"

extern char** environ;

namespace kgate {
namespace {

using Clock = std::chrono::steady_clock;

std::string signal_text(int sig) {
  const char* name = strsignal(sig);
  return "killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
}

void append_capped(std::string& out, const char* data, size_t n, size_t cap) {
  out.append(data, n);
  if (out.size() > cap * 2) out.erase(0, out.size() - cap);
}

// Reads the given fds until all close or the deadline passes. Returns false on timeout.
bool drain(std::vector<std::pair<int, std::string*>> fds, Clock::time_point deadline, size_t cap,
           int stdin_fd = -1, const std::string* stdin_text = nullptr,
           const std::atomic<bool>* cancel = nullptr) {
  size_t stdin_written = 0;
  char buffer[65536];
  while (true) {
    std::vector<pollfd> polls;
    for (auto& [fd, _] : fds)
      if (fd >= 0) polls.push_back({fd, POLLIN, 0});
    if (stdin_fd >= 0) polls.push_back({stdin_fd, POLLOUT, 0});
    if (polls.empty()) return true;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    if (cancel && cancel->load()) return false;
    // With a cancel flag, wake often enough to notice it promptly.
    int64_t wait_ms = std::min<int64_t>(left.count(), cancel ? 100 : 1000);
    int ready = poll(polls.data(), polls.size(), static_cast<int>(wait_ms));
    if (ready < 0 && errno != EINTR) return true;
    for (const pollfd& p : polls) {
      if (!p.revents) continue;
      if (p.fd == stdin_fd) {
        ssize_t n =
            write(stdin_fd, stdin_text->data() + stdin_written, stdin_text->size() - stdin_written);
        if (n > 0) stdin_written += n;
        if (n < 0 || stdin_written >= stdin_text->size()) {
          close(stdin_fd);
          stdin_fd = -1;
        }
        continue;
      }
      for (auto& [fd, out] : fds) {
        if (fd != p.fd) continue;
        ssize_t n = read(fd, buffer, sizeof buffer);
        if (n > 0) {
          append_capped(*out, buffer, n, cap);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
          close(fd);
          fd = -1;
        }
      }
    }
  }
}

void kill_group(pid_t pid) {
  kill(-pid, SIGKILL);
  kill(pid, SIGKILL);
}

std::string last_lines(const std::string& text, int lines) {
  size_t pos = text.size();
  while (lines-- > 0 && pos > 0) {
    pos = text.rfind('\n', pos - 2 < text.size() ? pos - 2 : 0);
    if (pos == std::string::npos) return text;
    ++pos;
  }
  return text.substr(pos);
}

}  // namespace

std::string CommandOutcome::describe(double timeout_s) const {
  if (cancelled) return "cancelled";
  if (timed_out) {
    std::ostringstream s;
    s << "timed out after " << timeout_s << " s";
    return s.str();
  }
  if (signal) return signal_text(signal);
  return "exit code " + std::to_string(exit_code);
}

std::string ChildOutcome::describe(double timeout_s) const {
  CommandOutcome c;
  c.exit_code = exit_code;
  c.signal = signal;
  c.timed_out = timed_out;
  return c.describe(timeout_s);
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st;
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return "";
}

Result<CommandOutcome> run_command(const std::vector<std::string>& argv,
                                   const CommandOptions& options) {
  if (argv.empty()) return Error::bad_input("run_command: empty command");
  std::string program = find_program(argv[0]);
  if (program.empty())
    return Error::infrastructure("'" + argv[0] + "' not found on PATH; is it installed?");
  int out_pipe[2], err_pipe[2], in_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(in_pipe, O_CLOEXEC))
    return Error::infrastructure(std::string("pipe: ") + strerror(errno));
  std::vector<std::string> env_strings;
  for (char** e = options.clean_env ? nullptr : environ; e && *e; ++e) {
    std::string entry = *e;
    std::string key = entry.substr(0, entry.find('='));
    if (!options.env.count(key)) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : options.env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& s : argv_copy) args.push_back(s.data());
  args.push_back(nullptr);

  auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) return Error::infrastructure(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
      dprintf(2, "cannot enter %s: %s\n", options.cwd.c_str(), strerror(errno));
      _exit(127);
    }
    if (!apply_file_shield(options.landlock_ruleset_fd)) {
      dprintf(2, "cannot restrict what the job may read (Landlock): %s\n", strerror(errno));
      _exit(126);
    }
    if (options.close_other_fds && syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
      for (int fd = 3, n = static_cast<int>(sysconf(_SC_OPEN_MAX)); fd < n; ++fd) close(fd);
    execve(program.c_str(), args.data(), envp.data());
    dprintf(2, "cannot run %s: %s\n", program.c_str(), strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  int stdin_fd = in_pipe[1];
  if (options.stdin_text.empty()) {
    close(stdin_fd);
    stdin_fd = -1;
  } else {
    fcntl(stdin_fd, F_SETFL, O_NONBLOCK);
  }
  signal(SIGPIPE, SIG_IGN);
  CommandOutcome outcome;
  auto deadline = start + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(options.timeout_s));
  bool finished = drain({{out_pipe[0], &outcome.out}, {err_pipe[0], &outcome.err}}, deadline,
                        options.max_output_bytes, stdin_fd, &options.stdin_text, options.cancel);
  if (!finished) {
    outcome.cancelled = options.cancel && options.cancel->load() && Clock::now() < deadline;
    outcome.timed_out = !outcome.cancelled;
    kill_group(pid);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (stdin_fd >= 0) close(stdin_fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (finished) kill(-pid, SIGKILL);  // stragglers the program left behind
  outcome.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !outcome.timed_out) outcome.signal = WTERMSIG(status);
  return outcome;
}

ChildOutcome run_in_child(const std::function<std::string()>& body, double timeout_s) {
  ChildOutcome outcome;
  int result_pipe[2], err_pipe[2];
  if (pipe2(result_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC)) {
    outcome.err_tail = std::string("pipe: ") + strerror(errno);
    return outcome;
  }
  fflush(stdout);
  fflush(stderr);
  auto start = Clock::now();
  pid_t pid = fork();
  if (pid < 0) {
    outcome.err_tail = std::string("fork: ") + strerror(errno);
    return outcome;
  }
  if (pid == 0) {
    setpgid(0, 0);
    close(result_pipe[0]);
    close(err_pipe[0]);
    dup2(err_pipe[1], 2);
    std::string payload;
    try {
      payload = body();
    } catch (const std::exception& e) {
      dprintf(2, "uncaught exception: %s\n", e.what());
      _exit(70);
    }
    size_t written = 0;
    while (written < payload.size()) {
      ssize_t n = write(result_pipe[1], payload.data() + written, payload.size() - written);
      if (n <= 0) _exit(71);
      written += n;
    }
    close(result_pipe[1]);
    // _exit skips static destructors, which may touch state (a GPU context)
    // the kernel under test left broken.
    _exit(0);
  }
  setpgid(pid, pid);
  close(result_pipe[1]);
  close(err_pipe[1]);
  std::string err;
  auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
  bool finished =
      drain({{result_pipe[0], &outcome.payload}, {err_pipe[0], &err}}, deadline, 1 << 28);
  if (!finished) {
    outcome.timed_out = true;
    kill_group(pid);
    close(result_pipe[0]);
    close(err_pipe[0]);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status) && !outcome.timed_out) outcome.signal = WTERMSIG(status);
  outcome.completed = !outcome.timed_out && outcome.signal == 0 && outcome.exit_code == 0;
  outcome.err_tail = last_lines(err, 20);
  return outcome;
}

}  // namespace kgate
