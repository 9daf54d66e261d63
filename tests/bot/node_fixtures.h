#pragma once
// Test data from npm (tests/node_modules, installed by scripts/setup):
// @octokit/fixtures-server (recorded GitHub traffic, served on 127.0.0.1)
// and @octokit/openapi (GitHub's API description). Tests that need them
// skip with a message naming what is missing.
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/http_transport.h"
#include "core/subprocess.h"

extern char** environ;

namespace kgate::testing {

inline std::filesystem::path node_modules_dir() {
  return std::filesystem::path(KGATE_SOURCE_DIR) / "tests" / "node_modules";
}

// Empty when everything is there; otherwise what is missing, for GTEST_SKIP.
inline std::string missing_npm_packages() {
  if (find_program("node").empty()) return "node is not installed (scripts/setup installs nodejs)";
  for (const char* pkg : {"@octokit/fixtures-server", "@octokit/openapi", "@octokit/fixtures"})
    if (!std::filesystem::exists(node_modules_dir() / pkg / "package.json"))
      return std::string("npm package ") + pkg +
             " is missing from tests/node_modules (run scripts/setup, which runs npm ci in tests/)";
  return "";
}

inline int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  int port = ntohs(addr.sin_port);
  ::close(fd);
  return port;
}

// `octokit-fixtures-server` on 127.0.0.1 for the life of the object.
class FixturesServer {
 public:
  // The port is free when picked but may be taken before node binds it
  // (another test's connection): node then exits, and a new port is tried.
  FixturesServer() {
    for (int attempt = 0; attempt < 5 && !ready_; ++attempt) start();
  }
  ~FixturesServer() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  bool ready() const { return ready_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Loads a scenario; returns the API base URL to use for it (or empty).
  std::string load(const std::string& scenario) {
    auto r = http_send({.method = "POST",
                        .url = url() + "/fixtures",
                        .headers = {{"Content-Type", "application/json"}},
                        .body = nlohmann::json{{"scenario", scenario}}.dump()});
    if (!r.ok() || r->status != 201) return "";
    return nlohmann::json::parse(r->body)["url"].get<std::string>();
  }

 private:
  void start() {
    port_ = free_port();
    std::string node = find_program("node");
    std::string script = (node_modules_dir() / "@octokit/fixtures-server/bin/server.js").string();
    std::string port = std::to_string(port_);
    std::string fixtures_url = "http://127.0.0.1:" + port;
    const char* argv[] = {node.c_str(),  script.c_str(),   "--port",
                          port.c_str(),  "--fixtures-url", fixtures_url.c_str(),
                          "--log-level", "error",          nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&actions, (node_modules_dir().parent_path()).c_str());
    if (posix_spawn(&pid_, node.c_str(), &actions, nullptr, const_cast<char**>(argv), environ) != 0)
      pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    for (int i = 0; i < 600 && pid_ > 0;
         ++i) {  // node needs a while to load express on a busy machine
      auto r = http_send({.method = "GET", .url = url() + "/ping", .timeouts = {.total_s = 2}});
      if (r.ok() && r->status == 200) {
        ready_ = true;
        break;
      }
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // node exited: no server
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  pid_t pid_ = -1;
  int port_ = 0;
  bool ready_ = false;
};

}  // namespace kgate::testing
