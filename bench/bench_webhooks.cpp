// Load generator for `kgate serve`: starts the built kgate binary on
// 127.0.0.1, posts signed deliveries (a real pull_request payload from
// @octokit/webhooks-examples, a fresh delivery id each) over keep-alive
// connections, and reports deliveries per second and answer-time quantiles.
// With --big N it instead posts N deliveries of 25 MB at once and reports the
// server's peak resident memory (VmHWM).
//
// --slowloris N keeps N connections open that send one byte every 2 s and
// never finish their request (reconnecting when the server cuts them), and
// --header-flood N keeps N connections sending header lines as fast as the
// server reads them (reconnecting when cut), while the deliveries are measured.
//
// --rate R is open loop: deliveries are due at a fixed rate (R per second,
// evenly spaced) whatever the answers do, and each answer time runs from
// when its delivery was due, so a slow answer delays the ones queued behind
// it and shows in the quantiles (no coordinated omission). One thread drives
// every connection through epoll with pre-built requests, so the generator
// costs little of the 2 cores it shares with the server. Without --rate the
// generator is closed loop (each connection sends when answered).
//
// --head-check N starts no server: it times the front's strict head check
// (webhooks/request_head.h: scanner and check) N times on the head the open
// loop sends, the work each request gained before httplib parses it.
//
//   bench_webhooks [--kgate PATH] [--seconds 10] [--connections 8] [--rate 0]
//                  [--durability full|normal|default] [--big 0] [--source CHECKOUT]
//                  [--http-threads N] [--slowloris 0] [--header-flood 0] [--per-peer N]
//                  [--head-check 0]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <deque>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "webhooks/request_head.h"
#include "webhooks/signature.h"

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

const char* kSecret = "bench secret";

std::string arg(int argc, char** argv, const std::string& name, const std::string& fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (argv[i] == name) return argv[i + 1];
  return fallback;
}

long vm_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::stol(line.substr(key.size() + 1));
  return -1;
}

struct Server {
  pid_t pid = -1;
  int port = 0;
};

Server start_server(const fs::path& kgate, const fs::path& work, const std::string& durability,
                    const std::string& http_threads, const std::string& per_peer) {
  fs::create_directories(work / "repo");
  std::ofstream(work / "job.sh")
      << "#!/bin/sh\nexec sleep 600\n";  // the GPU stays busy: jobs queue up
  fs::permissions(work / "job.sh", fs::perms::owner_all);
  fs::path log = work / "serve.log";
  Server server;
  server.pid = fork();
  if (server.pid == 0) {
    FILE* err = std::fopen(log.c_str(), "w");
    if (err) dup2(fileno(err), 2);
    setenv("KGATE_WEBHOOK_SECRET", kSecret, 1);
    std::vector<std::string> args = {kgate.string(),    "serve",
                                     "--listen",        "127.0.0.1:0",
                                     "--repo",          (work / "repo").string(),
                                     "--state-dir",     (work / "state").string(),
                                     "--job-command",   (work / "job.sh").string(),
                                     "--workers",       "1",
                                     "--drain-timeout", "0"};
    if (!http_threads.empty()) args.insert(args.end(), {"--http-threads", http_threads});
    if (!per_peer.empty()) args.insert(args.end(), {"--max-connections-per-peer", per_peer});
    // "default": measure what `kgate serve` does when not told.
    if (durability != "default") args.insert(args.end(), {"--durability", durability});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(kgate.c_str(), argv.data());
    _exit(127);
  }
  for (int i = 0; i < 500 && server.port == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) {
      auto j = nlohmann::json::parse(line, nullptr, false);
      if (j.is_object() && j.value("msg", "") == "listening") server.port = j.value("port", 0);
    }
  }
  return server;
}

std::string example_body(const fs::path& source) {
  std::ifstream in(source /
                   "tests/node_modules/@octokit/webhooks-examples/api.github.com/index.json");
  if (!in) return "";
  auto all = nlohmann::json::parse(in);
  for (const auto& e : all)
    if (e["name"] == "pull_request")
      for (const auto& p : e["examples"])
        if (p["action"] == "synchronize") return p.dump();
  return "";
}

// One keep-alive connection of the open-loop generator. Invariant: at most
// one request in flight; `due` is when that request was scheduled.
struct Connection {
  int fd = -1;
  bool busy = false;
  Clock::time_point due;
  std::string out;  // bytes still to send
  size_t sent = 0;
  std::string in;  // answer bytes so far
};

// From `source` (127.0.0.x) when given: the attackers are other peers than GitHub.
int connect_loopback(int port, bool blocking = false, const char* source = nullptr) {
  int fd = ::socket(AF_INET, SOCK_STREAM | (blocking ? 0 : SOCK_NONBLOCK), 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (source) {
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, source, &local.sin_addr);
    ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local);
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);  // EINPROGRESS
  return fd;
}

// The length of a complete HTTP answer at the start of `in` (0: not yet), and its status.
size_t complete_answer(const std::string& in, int& status) {
  size_t end = in.find("\r\n\r\n");
  if (end == std::string::npos) return 0;
  status = in.size() > 12 ? std::atoi(in.c_str() + 9) : 0;
  size_t length = 0;
  size_t at = in.find("Content-Length:");
  if (at == std::string::npos) at = in.find("content-length:");
  if (at != std::string::npos && at < end) length = std::strtoul(in.c_str() + at + 15, nullptr, 10);
  return in.size() >= end + 4 + length ? end + 4 + length : 0;
}

// Hostile load next to the measured deliveries: slow sockets and header floods.
class Attackers {
 public:
  Attackers(int port, int slow, int floods) {
    for (int i = 0; i < slow; ++i) slow_.push_back(-1);
    if (slow > 0)
      threads_.emplace_back([this, port] {
        while (!stop_) {
          for (int& fd : slow_) {
            if (fd < 0) {
              fd = connect_loopback(port, true, "127.0.0.2");
              send_all(fd, "POST /webhook HTTP/1.1\r\nHost: x\r\nX-Slow: ");
              ++slow_connections;
            }
            if (!send_all(fd, "s")) {
              ::close(fd);
              fd = -1;
            }
          }
          for (int i = 0; i < 20 && !stop_; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        for (int fd : slow_)
          if (fd >= 0) ::close(fd);
      });
    for (int f = 0; f < floods; ++f)
      threads_.emplace_back([this, port] {
        std::string lines;
        for (int i = 0; i < 1000; ++i)
          lines += "X-Flood-" + std::to_string(i) + ": " + std::string(100, 'f') + "\r\n";
        while (!stop_) {
          int fd = connect_loopback(port, true, "127.0.0.3");
          timeval tv{1, 0};
          setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
          ++flood_connections;
          send_all(fd, "POST /webhook HTTP/1.1\r\nHost: x\r\n");
          // 60,000 header lines, or until the server cuts the connection.
          for (int i = 0; i < 60 && !stop_ && send_all(fd, lines); ++i) flood_bytes += lines.size();
          ::close(fd);
          // Reconnects at most 100 times a second: the generator shares the 2 cores.
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
      });
  }
  ~Attackers() {
    stop_ = true;
    for (auto& t : threads_) t.join();
  }
  std::atomic<long> slow_connections{0}, flood_connections{0}, flood_bytes{0};

 private:
  static bool send_all(int fd, const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = ::send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  std::vector<int> slow_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};

struct OpenLoopResult {
  std::vector<double> latencies_ms;
  long errors = 0, sent = 0;
  double elapsed = 0;
  double late_ms = 0;  // the most a delivery waited for a free connection
};

OpenLoopResult open_loop(int port, int connections, double rate, double seconds,
                         const std::string& body, const std::string& signature) {
  OpenLoopResult result;
  int ep = epoll_create1(0);
  std::vector<Connection> conns(connections);
  for (int i = 0; i < connections; ++i) {
    conns[i].fd = connect_loopback(port);
    epoll_event ev{};
    ev.events = EPOLLIN | EPOLLOUT | EPOLLET;
    ev.data.u32 = static_cast<uint32_t>(i);
    epoll_ctl(ep, EPOLL_CTL_ADD, conns[i].fd, &ev);
  }
  const std::string head_start =
      "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
      "X-GitHub-Event: pull_request\r\nX-Hub-Signature-256: " +
      signature + "\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nX-GitHub-Delivery: open-";
  auto flush = [&](Connection& c) {
    while (c.sent < c.out.size()) {
      ssize_t n = ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      c.sent += static_cast<size_t>(n);
    }
  };
  std::deque<Clock::time_point> waiting;  // due but no free connection yet
  auto start = Clock::now();
  auto period =
      std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / rate));
  long total = static_cast<long>(rate * seconds);
  long scheduled = 0, answered_or_failed = 0;
  size_t next_free = 0;
  char buf[65536];
  while (answered_or_failed < total) {
    auto now = Clock::now();
    while (scheduled < total && start + scheduled * period <= now)
      waiting.push_back(start + (scheduled++) * period);
    // Hand due deliveries to idle connections.
    for (int tries = 0; !waiting.empty() && tries < connections; ++tries) {
      Connection& c = conns[next_free];
      next_free = (next_free + 1) % conns.size();
      if (c.busy) continue;
      c.busy = true;
      c.due = waiting.front();
      result.late_ms =
          std::max(result.late_ms, std::chrono::duration<double, std::milli>(now - c.due).count());
      waiting.pop_front();
      c.out = head_start + std::to_string(result.sent++) + "\r\n\r\n" + body;
      c.sent = 0;
      c.in.clear();
      flush(c);
    }
    int timeout_ms = 1;
    if (waiting.empty() && scheduled < total) {
      auto until = start + scheduled * period - Clock::now();
      timeout_ms = std::max<int>(
          0,
          static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(until).count()));
    }
    epoll_event events[64];
    int n = epoll_wait(ep, events, 64, std::min(timeout_ms, 1));
    for (int e = 0; e < n; ++e) {
      Connection& c = conns[events[e].data.u32];
      if (events[e].events & EPOLLOUT) flush(c);
      if (!(events[e].events & (EPOLLIN | EPOLLERR | EPOLLHUP))) continue;
      while (true) {
        ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
        if (got <= 0) break;
        c.in.append(buf, static_cast<size_t>(got));
      }
      int status = 0;
      if (c.busy && complete_answer(c.in, status) > 0) {
        double ms = std::chrono::duration<double, std::milli>(Clock::now() - c.due).count();
        if (status == 202)
          result.latencies_ms.push_back(ms);
        else
          ++result.errors;
        ++answered_or_failed;
        c.busy = false;
        c.in.clear();
      }
    }
    if (std::chrono::duration<double>(Clock::now() - start).count() > seconds + 30) {
      result.errors += total - answered_or_failed;  // never answered
      break;
    }
  }
  result.elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  for (auto& c : conns) ::close(c.fd);
  ::close(ep);
  return result;
}

// The server's own view from /metrics: the time from a delivery's body being
// read to its answer (verify, parse, group commit), as mean and the share
// answered within 5 and 10 ms. What the client sees beyond that is the
// connection, the body transfer and scheduling.
void print_server_view(int port) {
  httplib::Client client("127.0.0.1", port);
  auto r = client.Get("/metrics");
  if (!r || r->status != 200) return;
  double sum = 0, count = 0, within5 = 0, within10 = 0;
  std::istringstream lines(r->body);
  for (std::string line; std::getline(lines, line);) {
    auto value = [&] { return std::stod(line.substr(line.rfind(' ') + 1)); };
    if (line.rfind("kgate_webhook_answer_seconds_sum", 0) == 0) sum = value();
    if (line.rfind("kgate_webhook_answer_seconds_count", 0) == 0) count = value();
    if (line.rfind("kgate_webhook_answer_seconds_bucket{le=\"0.005\"}", 0) == 0) within5 = value();
    if (line.rfind("kgate_webhook_answer_seconds_bucket{le=\"0.01\"}", 0) == 0) within10 = value();
  }
  if (count > 0)
    std::printf(
        "server side (body read to answer): mean %.2f ms; within 5 ms %.1f%%, within 10 ms "
        "%.1f%%\n",
        sum / count * 1000, within5 / count * 100, within10 / count * 100);
}

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + i, v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);  // the server may close a connection it refuses mid-body
  fs::path self = fs::read_symlink("/proc/self/exe");
  fs::path kgate =
      arg(argc, argv, "--kgate", (self.parent_path().parent_path() / "kgate").string());
  double seconds = std::stod(arg(argc, argv, "--seconds", "10"));
  int connections = std::stoi(arg(argc, argv, "--connections", "8"));
  int big = std::stoi(arg(argc, argv, "--big", "0"));
  std::string durability = arg(argc, argv, "--durability", "default");
  double rate = std::stod(arg(argc, argv, "--rate", "0"));
  std::string http_threads = arg(argc, argv, "--http-threads", "");  // "": the service's default
  int slowloris = std::stoi(arg(argc, argv, "--slowloris", "0"));
  int floods = std::stoi(arg(argc, argv, "--header-flood", "0"));
  // --max-connections-per-peer of the server ("": its default; 0 also turns off the penalty).
  std::string per_peer = arg(argc, argv, "--per-peer", "");
  fs::path source = arg(argc, argv, "--source", ".");  // the kgate checkout (run from its root)

  std::string body = example_body(source);
  if (body.empty()) {
    std::fprintf(stderr, "bench: run scripts/setup first (needs @octokit/webhooks-examples)\n");
    return 2;
  }
  if (long checks = std::stol(arg(argc, argv, "--head-check", "0")); checks > 0) {
    std::string head =
        "POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "X-GitHub-Event: pull_request\r\nX-Hub-Signature-256: " +
        kgate::webhooks::github_signature(kSecret, body) +
        "\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\nX-GitHub-Delivery: open-0000000001\r\n\r\n";
    std::string bytes = head + body.substr(0, 16384 - head.size());  // what one receive holds
    kgate::webhooks::HeadLimits limits;
    size_t accepted = 0;
    auto start = Clock::now();
    for (long i = 0; i < checks; ++i) {
      kgate::webhooks::HeadScanner scanner(limits);
      if (scanner.scan(bytes) != kgate::webhooks::HeadScanner::State::kWhole) continue;
      auto checked = kgate::webhooks::check_request_head(
          std::string_view(bytes).substr(0, scanner.size()), limits);
      accepted += std::holds_alternative<kgate::webhooks::RequestHead>(checked);
    }
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    std::printf("head check: %ld heads of %zu bytes, %zu accepted, %.0f ns per head\n", checks,
                head.size(), accepted, ns / static_cast<double>(checks));
    return accepted == static_cast<size_t>(checks) ? 0 : 1;
  }
  fs::path work = fs::temp_directory_path() / ("kgate-bench-" + std::to_string(getpid()));
  Server server = start_server(kgate, work, durability, http_threads, per_peer);
  if (server.port == 0) {
    std::fprintf(stderr, "bench: kgate serve did not start; see %s\n",
                 (work / "serve.log").c_str());
    return 3;
  }

  if (big > 0) {
    // Several 25 MB deliveries in flight at once.
    auto payload = nlohmann::json::parse(body);
    payload["padding"] = "";
    size_t base = payload.dump().size();
    payload["padding"] = std::string((25u << 20) - base, 'x');
    std::string huge = payload.dump();
    std::string signature = kgate::webhooks::github_signature(kSecret, huge);
    long before = vm_kb(server.pid, "VmRSS");
    std::vector<std::thread> senders;
    std::atomic<int> accepted{0}, busy{0};
    auto start = Clock::now();
    for (int i = 0; i < big; ++i)
      senders.emplace_back([&, i] {
        httplib::Client client("127.0.0.1", server.port);
        client.set_read_timeout(120);
        client.set_write_timeout(120);
        httplib::Headers h = {{"X-GitHub-Event", "pull_request"},
                              {"X-GitHub-Delivery", "big-" + std::to_string(i)},
                              {"X-Hub-Signature-256", signature}};
        auto r = client.Post("/webhook", h, huge, "application/json");
        if (r && r->status == 202) ++accepted;
        if (!r || r->status == 503) ++busy;  // refused (or reset) for want of memory in time
      });
    for (auto& t : senders) t.join();
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    long peak = vm_kb(server.pid, "VmHWM");
    std::printf(
        "big: %d x %zu-byte deliveries at once, %d answered 202, %d refused (503 or reset) in "
        "%.2f s\n",
        big, huge.size(), accepted.load(), busy.load(), elapsed);
    std::printf("server RSS before %.1f MB, peak (VmHWM) %.1f MB\n", before / 1024.0,
                peak / 1024.0);
  } else if (rate > 0) {
    std::string signature = kgate::webhooks::github_signature(kSecret, body);
    long rss_before = vm_kb(server.pid, "VmRSS");
    std::unique_ptr<Attackers> attackers;
    if (slowloris > 0 || floods > 0) {
      attackers = std::make_unique<Attackers>(server.port, slowloris, floods);
      std::this_thread::sleep_for(std::chrono::seconds(2));  // the attack is under way
    }
    OpenLoopResult r = open_loop(server.port, connections, rate, seconds, body, signature);
    if (attackers)
      std::printf(
          "attack running: %d slow sockets (%ld connections made), %d header flood(s) (%ld "
          "connections, %.1f MB of header lines written to their sockets)\n",
          slowloris, attackers->slow_connections.load(), floods,
          attackers->flood_connections.load(), attackers->flood_bytes.load() / 1e6);
    attackers.reset();
    std::printf("server RSS before %.1f MB\n", rss_before / 1024.0);
    std::vector<double>& l = r.latencies_ms;
    size_t n = l.size();
    double p50 = quantile(l, 0.50), p99 = quantile(l, 0.99), p999 = quantile(l, 0.999),
           max = n ? *std::max_element(l.begin(), l.end()) : 0;
    std::printf(
        "open loop: %ld deliveries due at %.0f/s (%zu-byte body, signed) over %d connections, "
        "durability=%s\n",
        r.sent, rate, body.size(), connections, durability.c_str());
    std::printf(
        "answered 202: %zu in %.2f s (%.0f deliveries/s); answer time from due: p50 %.2f ms, "
        "p99 %.2f ms, p99.9 %.2f ms, max %.2f ms; errors %ld\n",
        n, r.elapsed, n / r.elapsed, p50, p99, p999, max, r.errors);
    std::printf("most a delivery waited for a free connection: %.2f ms\n", r.late_ms);
    print_server_view(server.port);
    std::printf("server peak RSS (VmHWM) %.1f MB\n", vm_kb(server.pid, "VmHWM") / 1024.0);
  } else {
    std::string signature = kgate::webhooks::github_signature(kSecret, body);
    std::atomic<bool> stop{false};
    std::atomic<long> errors{0};
    std::mutex mutex;
    std::vector<double> latencies;
    std::vector<std::thread> clients;
    auto start = Clock::now();
    for (int c = 0; c < connections; ++c)
      clients.emplace_back([&, c] {
        httplib::Client client("127.0.0.1", server.port);
        client.set_keep_alive(true);
        client.set_tcp_nodelay(true);
        std::vector<double> mine;
        for (long n = 0; !stop; ++n) {
          httplib::Headers h = {
              {"X-GitHub-Event", "pull_request"},
              {"X-GitHub-Delivery", "bench-" + std::to_string(c) + "-" + std::to_string(n)},
              {"X-Hub-Signature-256", signature}};
          auto t0 = Clock::now();
          auto r = client.Post("/webhook", h, body, "application/json");
          double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
          if (!r || r->status != 202) {
            ++errors;
            continue;
          }
          mine.push_back(ms);
        }
        std::lock_guard lock(mutex);
        latencies.insert(latencies.end(), mine.begin(), mine.end());
      });
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop = true;
    for (auto& t : clients) t.join();
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    size_t n = latencies.size();
    double p50 = quantile(latencies, 0.50), p99 = quantile(latencies, 0.99),
           p999 = quantile(latencies, 0.999),
           max = n ? *std::max_element(latencies.begin(), latencies.end()) : 0;
    std::printf(
        "%zu deliveries (%zu-byte body, signed) in %.1f s over %d connections, durability=%s\n", n,
        body.size(), elapsed, connections, durability.c_str());
    std::printf(
        "throughput %.0f deliveries/s; answer time p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max "
        "%.2f ms; "
        "errors %ld\n",
        n / elapsed, p50, p99, p999, max, errors.load());
    std::printf("server peak RSS (VmHWM) %.1f MB\n", vm_kb(server.pid, "VmHWM") / 1024.0);
  }
  kill(server.pid, SIGTERM);
  int status = 0;
  waitpid(server.pid, &status, 0);
  std::error_code ec;
  fs::remove_all(work, ec);
  return 0;
}
