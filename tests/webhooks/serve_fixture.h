#pragma once
// Helpers for the webhook tests: a `kgate serve` process started in the
// background on a free port of 127.0.0.1, GitHub's example payloads from the
// @octokit/webhooks-examples npm package, and deliveries signed as GitHub signs them.
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "support/test_support.h"
#include "webhooks/signature.h"

namespace kgate::testing {

inline const std::string kSecret = "kgate test secret";

// Real payloads, by event name, from the npm package (scripts/setup installs it).
inline const nlohmann::json& octokit_examples() {
  static const nlohmann::json examples = [] {
    auto file =
        source_dir() / "tests/node_modules/@octokit/webhooks-examples/api.github.com/index.json";
    std::ifstream in(file);
    if (!in) return nlohmann::json();
    return nlohmann::json::parse(in);
  }();
  return examples;
}

inline bool have_octokit_examples() {
  return !octokit_examples().is_null();
}

// The first example of `event` whose action is `action` (any action when empty).
inline nlohmann::json example_payload(const std::string& event, const std::string& action = "") {
  for (const auto& entry : octokit_examples())
    if (entry["name"] == event)
      for (const auto& payload : entry["examples"])
        if (action.empty() || payload.value("action", "") == action) return payload;
  ADD_FAILURE() << "no example of " << event << " " << action << " in @octokit/webhooks-examples";
  return nlohmann::json::object();
}

inline std::string new_delivery_id() {
  static std::mt19937_64 rng(std::random_device{}());
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%016llx-%08x", static_cast<unsigned long long>(rng()),
                static_cast<unsigned>(rng()));
  return buffer;
}

// A `kgate serve` child. Its stderr (JSON lines) goes to a file; the port is
// read from the "listening" line, so --listen 127.0.0.1:0 picks a free port.
class ServeProcess {
 public:
  ServeProcess(std::vector<std::string> args, std::map<std::string, std::string> env,
               std::filesystem::path log)
      : args_(std::move(args)), env_(std::move(env)), log_(std::move(log)) {}
  ~ServeProcess() { kill_now(); }

  // Starts and waits until it listens; false (with the log) when it did not.
  bool start(double timeout_s = 20) {
    std::error_code ec;
    log_offset_ = std::filesystem::exists(log_) ? std::filesystem::file_size(log_, ec) : 0;
    pid_ = fork();
    if (pid_ == 0) {
      FILE* err = std::fopen(log_.c_str(), "a");
      if (err) dup2(fileno(err), 2);
      for (const auto& [k, v] : env_) setenv(k.c_str(), v.c_str(), 1);
      std::vector<std::string> argv = {KGATE_BINARY, "serve"};
      argv.insert(argv.end(), args_.begin(), args_.end());
      std::vector<char*> c;
      for (auto& a : argv) c.push_back(a.data());
      c.push_back(nullptr);
      execv(KGATE_BINARY, c.data());
      _exit(127);
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      std::ifstream in(log_);
      in.seekg(static_cast<std::streamoff>(log_offset_));
      std::string line;
      while (std::getline(in, line)) {
        auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object() && j.value("msg", "") == "listening") {
          port_ = j.value("port", 0);
          return true;
        }
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }
  int port() const { return port_; }
  pid_t pid() const { return pid_; }
  std::string log() const { return read(log_); }

  void kill_now() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // SIGTERM and wait; the exit status (or -1 on a time-out, after SIGKILL).
  int terminate(double timeout_s = 30) {
    if (pid_ <= 0) return -1;
    kill(pid_, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill_now();
    return -1;
  }

 private:
  std::vector<std::string> args_;
  std::map<std::string, std::string> env_;
  std::filesystem::path log_;
  size_t log_offset_ = 0;
  pid_t pid_ = -1;
  int port_ = 0;
};

// Posts `body` as GitHub does: JSON, signed with `secret`, event and delivery headers.
inline httplib::Result post_delivery(httplib::Client& client, const std::string& event,
                                     const std::string& body, const std::string& delivery,
                                     const std::string& secret = kSecret) {
  httplib::Headers headers = {{"X-GitHub-Event", event},
                              {"X-GitHub-Delivery", delivery},
                              {"X-Hub-Signature-256", webhooks::github_signature(secret, body)},
                              {"User-Agent", "GitHub-Hookshot/kgate-test"}};
  return client.Post("/webhook", headers, body, "application/json");
}

// Reads one integer from the service's SQLite queue (opened read-only, alongside it).
inline int64_t query_int(const std::filesystem::path& db_file, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t value = -1;
  if (sqlite3_open_v2(db_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      value = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return value;
}

inline std::vector<std::string> query_strings(const std::filesystem::path& db_file,
                                              const std::string& sql) {
  sqlite3* db = nullptr;
  std::vector<std::string> out;
  if (sqlite3_open_v2(db_file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK)
      while (sqlite3_step(stmt) == SQLITE_ROW) {
        const unsigned char* t = sqlite3_column_text(stmt, 0);
        out.push_back(t ? reinterpret_cast<const char*>(t) : "");
      }
    sqlite3_finalize(stmt);
  }
  sqlite3_close(db);
  return out;
}

// Polls `condition` until it holds or `timeout_s` passes.
template <class F>
bool eventually(F condition, double timeout_s = 20) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return condition();
}

}  // namespace kgate::testing
