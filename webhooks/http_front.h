#pragma once
// The bounds the webhook listener puts on every connection before and while
// cpp-httplib reads it. httplib 0.11 reads a request with blocking sockets on
// a fixed set of threads and has no whole-request deadline, no limit on the
// number of header lines, and no connection limits: eight sockets sending a
// byte every two seconds held every thread, and one socket sending header
// lines grew the process without end. Its parser is also lenient where a
// lenient parser lets one connection's bytes be read as a second request
// (request_head.h), with no option to make it strict. BoundedHttpServer keeps
// httplib's parsing and routing but owns the socket loop:
//  - every request must arrive whole (head and body) within request_timeout_s
//    of its connection being accepted (later requests on a kept-alive
//    connection: of their first byte); past it the answer is 408;
//  - the head (request line and headers) is read here first, at most
//    max_header_bytes, max_header_lines and max_line_bytes (past any: 431),
//    and checked by check_request_head (400, 411, 501, 505); a declared
//    Content-Length over max_body_bytes is answered 413 before a byte of the
//    body is read; only a head that passed reaches httplib;
//  - every answer of 400 or more, and every request whose body was not read
//    to exactly its declared end (or was chunked), closes the connection, so
//    that no byte after it is ever read as a request;
//  - at most max_connections_per_peer connections of one address are served
//    at once, and at most max_connections are accepted and not yet closed;
//    past either a connection is answered 503 and closed at once;
//  - an address whose request was cut (408, 431) is penalized for penalty_s:
//    its connections must send their head within penalized_head_timeout_s and
//    penalized_max_header_*; bounds a prompt, well-formed delivery meets by
//    far, so a penalty never refuses one (GitHub's deliveries all come from a
//    few addresses: one slow upload must not cost the next deliveries);
//  - the listen backlog is raised from httplib's 5.
// Invariant: a connection is closed within request_timeout_s (plus one
// write_timeout_s for its answer, and one linger_s after an error) of its
// last request's start, whatever the client does, and an exception never
// leaves a connection's thread.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "webhooks/request_head.h"

namespace kgate::webhooks {

struct HttpLimits {
  int threads = 32;               // connections served at once; above the per-peer limit
  double request_timeout_s = 10;  // GitHub itself gives up on a delivery after 10 s
  double keep_alive_timeout_s = 5;
  double write_timeout_s = 5;
  size_t max_keep_alive_requests = 1000;  // a proxy's upstream connection carries many
  size_t max_header_bytes = 64u << 10;
  size_t max_header_lines = 100;
  size_t max_line_bytes = 8u << 10;
  uint64_t max_body_bytes = 25u << 20;  // a longer Content-Length: 413 before the body
  int max_connections = 512;            // accepted, waiting or served
  int max_connections_per_peer = 16;    // 0: no limit (behind a proxy all peers are one)
  // After the front cut a request of an address (too slow, head too large),
  // that address's connections must send a small head at once for this long:
  // a slow socket is cut in 2 s instead of 10, a flood at 40 lines. Off with
  // the per-peer limit.
  double penalty_s = 30;
  double penalized_head_timeout_s = 2;
  size_t penalized_max_header_bytes = 16u << 10;
  size_t penalized_max_header_lines = 40;
  // After an error answer, the connection reads (and drops) what its sender
  // still sends before closing, so that the answer is not lost to a reset (a
  // client that writes a whole refused 26 MB body before it reads): until
  // the sender closes, is quiet for linger_quiet_s, linger_s have passed, or
  // it sent the body it declared (at most max_body_bytes) and 256 KB more.
  double linger_s = 2;
  double linger_quiet_s = 0.5;
  int listen_backlog = 1024;
};

// Why the front cut the request being served on this thread.
enum class RequestCut { kNone, kTimeout };

class BoundedHttpServer : public httplib::Server {
 public:
  // `on_refused` gets "too-many-connections", "too-many-from-peer",
  // "header-too-large", "timeout", or the reason of a refused head
  // ("bad-request", "length-required", "too-large", "not-implemented",
  // "version-not-supported") for each connection cut; `head` is the checked
  // head when there was one (a 413), else null.
  using RefusalListener = std::function<void(const char* reason, const RequestHead* head)>;
  BoundedHttpServer(HttpLimits limits, RefusalListener on_refused);

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

  // The front's own hook decides Connection: close on every answer.
  httplib::Server& set_post_routing_handler(Handler) = delete;

 private:
  bool process_and_close_socket(socket_t sock) override;
  void serve(socket_t sock);
  void refuse(socket_t sock, const char* reason);
  void penalize(const std::string& peer);

  HttpLimits limits_;
  RefusalListener on_refused_;
  std::mutex peers_mutex_;
  std::map<std::string, int> peers_;  // address -> connections served now
  std::map<std::string, std::chrono::steady_clock::time_point> penalized_;  // address -> until
};

}  // namespace kgate::webhooks
