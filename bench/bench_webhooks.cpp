// Load generator for `kgate serve`: starts the built kgate binary on
// 127.0.0.1, posts signed deliveries (a real pull_request payload from
// @octokit/webhooks-examples, a fresh delivery id each) over keep-alive
// connections, and reports deliveries per second and answer-time quantiles.
// With --big N it instead posts N deliveries of 25 MB at once and reports the
// server's peak resident memory (VmHWM).
//
//   bench_webhooks [--kgate PATH] [--seconds 10] [--connections 8]
//                  [--durability full|normal] [--big 0] [--source CHECKOUT]
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

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

Server start_server(const fs::path& kgate, const fs::path& work, const std::string& durability) {
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
    execl(kgate.c_str(), kgate.c_str(), "serve", "--listen", "127.0.0.1:0", "--repo",
          (work / "repo").c_str(), "--state-dir", (work / "state").c_str(), "--job-command",
          (work / "job.sh").c_str(), "--workers", "1", "--drain-timeout", "0", "--durability",
          durability.c_str(), nullptr);
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

double quantile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  size_t i = std::min(v.size() - 1, static_cast<size_t>(q * (v.size() - 1) + 0.5));
  std::nth_element(v.begin(), v.begin() + i, v.end());
  return v[i];
}

}  // namespace

int main(int argc, char** argv) {
  fs::path self = fs::read_symlink("/proc/self/exe");
  fs::path kgate =
      arg(argc, argv, "--kgate", (self.parent_path().parent_path() / "kgate").string());
  double seconds = std::stod(arg(argc, argv, "--seconds", "10"));
  int connections = std::stoi(arg(argc, argv, "--connections", "8"));
  int big = std::stoi(arg(argc, argv, "--big", "0"));
  std::string durability = arg(argc, argv, "--durability", "full");
  fs::path source = arg(argc, argv, "--source", ".");  // the kgate checkout (run from its root)

  std::string body = example_body(source);
  if (body.empty()) {
    std::fprintf(stderr, "bench: run scripts/setup first (needs @octokit/webhooks-examples)\n");
    return 2;
  }
  fs::path work = fs::temp_directory_path() / ("kgate-bench-" + std::to_string(getpid()));
  Server server = start_server(kgate, work, durability);
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
    std::atomic<int> accepted{0};
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
      });
    for (auto& t : senders) t.join();
    double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    long peak = vm_kb(server.pid, "VmHWM");
    std::printf("big: %d x %zu-byte deliveries at once, %d answered 202 in %.2f s\n", big,
                huge.size(), accepted.load(), elapsed);
    std::printf("server RSS before %.1f MB, peak (VmHWM) %.1f MB\n", before / 1024.0,
                peak / 1024.0);
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
