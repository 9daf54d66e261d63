#include "agent/sweep_schedule.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <optional>

namespace kgate {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct RunningWorker {
  pid_t pid = -1;
  size_t job = 0;
  size_t device = 0;
  int payload_fd = -1;
  int err_fd = -1;  // -1: its stderr is this process's (one device)
  std::string payload;
  std::string line;              // an unfinished stderr line
  std::deque<std::string> tail;  // its last stderr lines
  SteadyClock::time_point started;
};

constexpr size_t kTailLines = 20;

// The worker side: confine, run, send the payload back, leave without
// running this process's static destructors (a forge's or a CUDA library's).
[[noreturn]] void run_worker(const SweepDevice& device, const std::function<std::string()>& body,
                             int payload_fd, int err_fd, pid_t parent) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);  // the sweep gone (killed): its workers go too
  if (getppid() != parent) _exit(72);
  if (err_fd >= 0) dup2(err_fd, 2);
  for (const auto& [name, value] : device.env) setenv(name.c_str(), value.c_str(), 1);
  if (!device.cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu : device.cpus)
      if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
      dprintf(2, "kgate: warning: %s: cannot pin its worker to its CPUs: %s\n",
              device.label.c_str(), strerror(errno));
  }
  std::string payload;
  try {
    payload = body();
  } catch (const std::exception& e) {
    dprintf(2, "kgate: %s: uncaught exception: %s\n", device.label.c_str(), e.what());
    _exit(70);
  }
  std::fflush(nullptr);
  size_t written = 0;
  while (written < payload.size()) {
    ssize_t n = write(payload_fd, payload.data() + written, payload.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(71);
    written += static_cast<size_t>(n);
  }
  _exit(0);
}

// Reads what `fd` has; false at its end (or an error).
bool read_some(int fd, std::string& into) {
  char buffer[65536];
  ssize_t n = read(fd, buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) return false;
  into.append(buffer, static_cast<size_t>(n));
  return true;
}

// Writes the worker's complete lines to stderr, each after its device's label.
void forward_worker_lines(RunningWorker& w, const std::string& label, bool flush_rest) {
  size_t start = 0;
  for (size_t end; (end = w.line.find('\n', start)) != std::string::npos; start = end + 1) {
    const std::string text = w.line.substr(start, end - start);
    std::fprintf(stderr, "[%s] %s\n", label.c_str(), text.c_str());
    w.tail.push_back(text);
    if (w.tail.size() > kTailLines) w.tail.pop_front();
  }
  w.line.erase(0, start);
  if (flush_rest && !w.line.empty()) {
    std::fprintf(stderr, "[%s] %s\n", label.c_str(), w.line.c_str());
    w.tail.push_back(w.line);
    w.line.clear();
  }
}

std::string describe_exit(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  return "ended with status " + std::to_string(status);
}

}  // namespace

SweepSchedule::SweepSchedule(std::vector<SweepDevice> devices) : devices_(std::move(devices)) {
  if (devices_.empty()) devices_.push_back(SweepDevice{0, "host", "host 0", "host", {}, {}});
}

void SweepSchedule::run(size_t count, const Start& start, const Done& done) {
  const bool capture = devices_.size() > 1;  // one worker keeps the sweep's output as it was
  const pid_t self = getpid();
  std::vector<std::optional<JobOutcome>> outcomes(count);
  std::vector<bool> busy(devices_.size(), false);
  std::vector<RunningWorker> workers;
  size_t next = 0, delivered = 0;

  auto deliver = [&] {
    while (delivered < count && outcomes[delivered]) {
      JobOutcome outcome = std::move(*outcomes[delivered]);
      outcomes[delivered].reset();
      done(delivered++, outcome);
    }
  };

  while (delivered < count) {
    // Start jobs, in order, on free devices.
    while (next < count) {
      auto free = std::find(busy.begin(), busy.end(), false);
      if (free == busy.end()) break;
      const size_t d = static_cast<size_t>(free - busy.begin());
      std::vector<size_t> running;
      for (const RunningWorker& w : workers) running.push_back(w.job);
      JobStart s = start(next, devices_[d], running);
      if (!s.body) {
        JobOutcome o;
        o.completed = true;
        o.payload = std::move(s.payload);
        outcomes[next++] = std::move(o);
        continue;
      }
      int payload_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
      bool piped =
          pipe2(payload_pipe, O_CLOEXEC) == 0 && (!capture || pipe2(err_pipe, O_CLOEXEC) == 0);
      std::fflush(nullptr);
      pid_t pid = piped ? fork() : -1;
      if (pid == 0) {
        close(payload_pipe[0]);
        if (err_pipe[0] >= 0) close(err_pipe[0]);
        for (const RunningWorker& w : workers) {
          close(w.payload_fd);
          if (w.err_fd >= 0) close(w.err_fd);
        }
        run_worker(devices_[d], s.body, payload_pipe[1], err_pipe[1], self);
      }
      const int why = errno;
      for (int fd : {payload_pipe[1], err_pipe[1]})
        if (fd >= 0) close(fd);
      if (pid < 0) {
        for (int fd : {payload_pipe[0], err_pipe[0]})
          if (fd >= 0) close(fd);
        JobOutcome o;
        o.failure = std::string(piped ? "fork: " : "pipe: ") + strerror(why);
        o.device = &devices_[d];
        outcomes[next++] = std::move(o);
        continue;
      }
      RunningWorker w;
      w.pid = pid;
      w.job = next++;
      w.device = d;
      w.payload_fd = payload_pipe[0];
      w.err_fd = err_pipe[0];
      w.started = SteadyClock::now();
      workers.push_back(std::move(w));
      busy[d] = true;
    }
    deliver();
    if (workers.empty()) continue;  // every job started is done; start the next or end

    std::vector<pollfd> fds;
    for (const RunningWorker& w : workers) {
      if (w.payload_fd >= 0) fds.push_back({w.payload_fd, POLLIN, 0});
      if (w.err_fd >= 0) fds.push_back({w.err_fd, POLLIN, 0});
    }
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      std::fprintf(stderr, "kgate: warning: poll: %s\n", strerror(errno));
    for (const pollfd& p : fds) {
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      for (RunningWorker& w : workers) {
        if (p.fd == w.payload_fd && !read_some(w.payload_fd, w.payload)) {
          close(w.payload_fd);
          w.payload_fd = -1;
        } else if (p.fd == w.err_fd) {
          const bool more = read_some(w.err_fd, w.line);
          forward_worker_lines(w, devices_[w.device].label, !more);
          if (!more) {
            close(w.err_fd);
            w.err_fd = -1;
          }
        }
      }
    }
    // A worker whose pipes both ended has exited (or is about to): reap it.
    for (auto it = workers.begin(); it != workers.end();) {
      if (it->payload_fd >= 0 || it->err_fd >= 0) {
        ++it;
        continue;
      }
      int status = 0;
      while (waitpid(it->pid, &status, 0) < 0 && errno == EINTR) {
      }
      JobOutcome o;
      o.device = &devices_[it->device];
      o.seconds = std::chrono::duration<double>(SteadyClock::now() - it->started).count();
      o.completed = WIFEXITED(status) && WEXITSTATUS(status) == 0;
      o.payload = std::move(it->payload);
      if (!o.completed) o.failure = describe_exit(status);
      for (const std::string& line : it->tail) o.err_tail += line + "\n";
      busy[it->device] = false;
      outcomes[it->job] = std::move(o);
      it = workers.erase(it);
    }
    deliver();
  }
}

Result<SweepShard> parse_shard(const std::string& text) {
  SweepShard shard;
  if (text.empty()) return shard;
  const size_t slash = text.find('/');
  const std::string j = text.substr(0, slash),
                    k = slash == std::string::npos ? "" : text.substr(slash + 1);
  auto digits = [](const std::string& s) {
    return !s.empty() && s.size() <= 4 && s.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(j) || !digits(k) || std::stoi(k) < 1 || std::stoi(j) >= std::stoi(k))
    return Error::bad_input("--shard " + text +
                            ": write J/K, shard J of K counted from 0 (0/2 and 1/2 split a sweep "
                            "in two)");
  shard.index = std::stoi(j);
  shard.count = std::stoi(k);
  return shard;
}

double sweep_time_left(double total_s, double elapsed_s, size_t devices,
                       const std::vector<double>& running_left_s) {
  double left = static_cast<double>(std::max<size_t>(devices, 1)) * (total_s - elapsed_s);
  for (double r : running_left_s) left -= std::max(0.0, r);
  return std::max(0.0, left);
}

}  // namespace kgate
