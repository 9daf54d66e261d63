#pragma once
// The bounds the webhook listener puts on every connection before and while
// cpp-httplib reads it. httplib 0.11 reads a request with blocking sockets on
// a fixed set of threads and has no whole-request deadline, no limit on the
// number of header lines, and no connection limits: eight sockets sending a
// byte every two seconds held every thread, and one socket sending header
// lines grew the process without end. BoundedHttpServer keeps httplib's
// parsing and routing but owns the socket loop:
//  - every request must arrive whole (head and body) within request_timeout_s
//    of its connection being accepted (later requests on a kept-alive
//    connection: of their first byte); past it the read fails and the answer
//    is 408;
//  - the head (request line and headers) is at most max_header_bytes and
//    max_header_lines; past either the read fails and the answer is 431;
//  - at most max_connections_per_peer connections of one address are served
//    at once, and at most max_connections are accepted and not yet closed;
//    past either a connection is answered 503 and closed at once; an address
//    whose request was cut is refused the same way for penalty_s;
//  - the listen backlog is raised from httplib's 5.
// Invariant: a connection is closed within request_timeout_s (plus one
// write_timeout_s for its answer) of its last request's start, whatever the
// client does, and an exception never leaves a connection's thread.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>

namespace kgate::webhooks {

struct HttpLimits {
  int threads = 32;               // connections served at once; above the per-peer limit
  double request_timeout_s = 10;  // GitHub itself gives up on a delivery after 10 s
  double keep_alive_timeout_s = 5;
  double write_timeout_s = 5;
  size_t max_keep_alive_requests = 1000;  // a proxy's upstream connection carries many
  size_t max_header_bytes = 64u << 10;
  size_t max_header_lines = 100;
  int max_connections = 512;          // accepted, waiting or served
  int max_connections_per_peer = 16;  // 0: no limit (behind a proxy all peers are one)
  // After the front cut a request of an address (too slow, head too large),
  // that address's new connections are refused this long: a flood costs an
  // accept and a close per connection, not a parse. Off with the per-peer limit.
  double penalty_s = 5;
  int listen_backlog = 1024;
};

// Why the front cut the request being served on this thread.
enum class RequestCut { kNone, kTimeout, kHeaderTooLarge };

class BoundedHttpServer : public httplib::Server {
 public:
  // `on_refused` gets "too-many-connections", "too-many-from-peer",
  // "penalized", "header-too-large" or "timeout" for each connection cut.
  BoundedHttpServer(HttpLimits limits, std::function<void(const char*)> on_refused);

  const HttpLimits& limits() const { return limits_; }
  // After bind_to_port/bind_to_any_port: the listen backlog httplib set is
  // raised to limits().listen_backlog.
  void raise_backlog();

  // On a request thread (handlers, error handler): when the request must be
  // read by, and whether the front cut it.
  static std::chrono::steady_clock::time_point request_deadline();
  static RequestCut request_cut();
  // From a handler: the current request gets `extra` more time (time it
  // spent waiting for the service, not for its sender).
  static void extend_request_deadline(std::chrono::steady_clock::duration extra);
  // From a handler: the connection closes after this reply (its body was
  // not read to the end, so what follows is not a request).
  static void close_after_reply();

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve(socket_t sock);
  void refuse(socket_t sock, const char* reason);

  HttpLimits limits_;
  std::function<void(const char*)> on_refused_;
  std::mutex peers_mutex_;
  std::map<std::string, int> peers_;  // address -> connections served now
  std::map<std::string, std::chrono::steady_clock::time_point> penalized_;  // address -> until
};

}  // namespace kgate::webhooks
