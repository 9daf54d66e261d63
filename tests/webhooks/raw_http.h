#pragma once
// A raw TCP client for the hostile-request tests: it sends exactly the bytes
// given (invalid UTF-8, half requests, slow bytes) where an HTTP library
// would refuse to, and reads whatever comes back.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>

namespace kgate::testing {

class RawConnection {
 public:
  // Connects to 127.0.0.1:`port`, from `source` (another loopback address
  // stands for another peer) when given.
  explicit RawConnection(int port, const std::string& source = "") {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (!source.empty()) {
      sockaddr_in local{};
      local.sin_family = AF_INET;
      inet_pton(AF_INET, source.c_str(), &local.sin_addr);
      if (bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
        close_now();
        return;
      }
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) close_now();
  }
  ~RawConnection() { close_now(); }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool ok() const { return fd_ >= 0; }
  bool send_all(const std::string& bytes) {
    size_t sent = 0;
    while (fd_ >= 0 && sent < bytes.size()) {
      ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return fd_ >= 0;
  }
  void finish_sending() {
    if (fd_ >= 0) shutdown(fd_, SHUT_WR);
  }
  // Whether the server closed the connection (or reset it) within `timeout_s`.
  bool closed_within(double timeout_s) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buffer[4096];
    while (std::chrono::steady_clock::now() < deadline) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return true;
      received_.append(buffer, static_cast<size_t>(n));
    }
    return false;
  }
  // Reads until the server closes, a whole response (by Content-Length) is
  // in, or `timeout_s` passes.
  std::string response(double timeout_s = 5) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    char buffer[65536];
    while (fd_ >= 0 && std::chrono::steady_clock::now() < deadline && !complete()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;
      ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) break;
      received_.append(buffer, static_cast<size_t>(n));
    }
    return received_;
  }
  const std::string& received() const { return received_; }

 private:
  bool complete() const {
    size_t head = received_.find("\r\n\r\n");
    if (head == std::string::npos) return false;
    size_t at = received_.find("Content-Length: ");
    if (at == std::string::npos || at > head) return true;
    size_t length = std::strtoull(received_.c_str() + at + 16, nullptr, 10);
    return received_.size() >= head + 4 + length;
  }
  void close_now() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  int fd_ = -1;
  std::string received_;
};

// The status code of a raw response, 0 when there is none.
inline int status_of(const std::string& response) {
  if (response.rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::atoi(response.c_str() + 9);
}

// A /proc/PID/status value in kB ("VmHWM", "VmRSS"); -1 when unreadable.
inline long proc_kb(pid_t pid, const std::string& key) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return std::atol(line.c_str() + key.size() + 1);
  return -1;
}

}  // namespace kgate::testing
