#include "webhooks/http_front.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <thread>
#include <variant>
#include <vector>

#include "webhooks/json_log.h"

namespace kgate::webhooks {
namespace {

using Clock = std::chrono::steady_clock;

// Set by the connection loop for the handlers running on its thread.
thread_local Clock::time_point t_deadline = Clock::time_point::max();
thread_local RequestCut t_cut = RequestCut::kNone;
thread_local bool t_close = false;
// An error answer was sent: at most this many bytes are drained before closing (0: none).
thread_local uint64_t t_linger_bytes = 0;
// What a refused sender may still have in flight besides a body it declared.
constexpr uint64_t kLingerSlack = 256u << 10;
class BoundedStream;
thread_local BoundedStream* t_stream = nullptr;  // the connection served on this thread
// Set by ConnectionPool before it hands a socket to the server.
thread_local Clock::time_point t_accepted = Clock::time_point::min();
thread_local bool t_overflow = false;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

enum class Wait { kReady, kTimeout, kGaveUp, kError };

// Waits for `events` on `sock` until `deadline`, in slices so that `give_up`
// is asked now and then.
Wait wait_until(int sock, short events, Clock::time_point deadline,
                const std::function<bool()>& give_up = nullptr) {
  while (true) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) return Wait::kTimeout;
    if (give_up && give_up()) return Wait::kGaveUp;
    pollfd p{sock, events, 0};
    int ready = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 200)));
    if (ready > 0) return Wait::kReady;
    if (ready < 0 && errno != EINTR) return Wait::kError;
  }
}

bool wait_for(int sock, short events, Clock::time_point deadline,
              const std::function<bool()>& give_up = nullptr) {
  return wait_until(sock, events, deadline, give_up) == Wait::kReady;
}

// The socket under the front's bounds. The front reads each request's head
// into the buffer here and checks it before httplib reads it again (a byte
// at a time, from the buffer); the body goes to httplib from what is left in
// the buffer, then straight from the socket.
class BoundedStream : public httplib::Stream {
 public:
  enum class Head { kWhole, kTooLarge, kTimeout, kClosed };

  BoundedStream(int sock, const HttpLimits& limits, std::function<bool()> stopping)
      : sock_(sock), limits_(limits), stopping_(std::move(stopping)) {}

  void extend(Clock::duration extra) { deadline_ += extra; }
  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }
  void start_request(Clock::time_point deadline) {
    deadline_ = deadline;
    buffer_.erase(0, offset_);
    offset_ = 0;
    handed_ = 0;
    expected_ = 0;
    any_byte_ = has_buffered();
  }
  bool has_buffered() const { return offset_ < buffer_.size(); }
  // A read failed or met the end: the connection cannot carry another request.
  bool broken() const { return broken_; }
  // Whether a byte of the current request has arrived.
  bool any_byte() const { return any_byte_; }

  // Reads until the head of the current request is in the buffer (`size`
  // bytes from head().data()), past a limit, past the deadline, or closed.
  Head read_head(const HeadLimits& limits, size_t& size) {
    HeadScanner scanner(limits);
    size_t skipped = 0;
    bool started = false;  // the request line began: no more empty lines are skipped
    while (true) {
      if (!started) {
        // RFC 9112 section 2.2: empty lines before a request line are ignored.
        while (buffer_.size() - offset_ >= 2 && buffer_[offset_] == '\r' &&
               buffer_[offset_ + 1] == '\n') {
          offset_ += 2;
          skipped += 2;
          if (skipped > limits.max_bytes) return Head::kTooLarge;
        }
        bool lone_cr = buffer_.size() - offset_ == 1 && buffer_[offset_] == '\r';
        started = has_buffered() && !lone_cr;
      }
      if (started) {
        HeadScanner::State state = scanner.scan(head(buffer_.size() - offset_));
        if (state == HeadScanner::State::kWhole) {
          size = scanner.size();
          return Head::kWhole;
        }
        if (state == HeadScanner::State::kTooLarge) return Head::kTooLarge;
      }
      Wait waited = wait_for_bytes();
      if (waited == Wait::kTimeout) return Head::kTimeout;
      if (waited != Wait::kReady || !receive()) return Head::kClosed;
    }
  }
  std::string_view head(size_t size) const {
    return std::string_view(buffer_.data() + offset_, size);
  }
  // httplib is to read `bytes` of the request (head and body) and no more;
  // kUnknown for a chunked body, whose end only httplib's reading knows.
  static constexpr uint64_t kUnknown = UINT64_MAX;
  void expect(uint64_t bytes) { expected_ = bytes; }
  bool read_as_declared() const { return expected_ == kUnknown || handed_ == expected_; }
  // Bytes of the declared body httplib did not read.
  uint64_t unread() const {
    return expected_ != kUnknown && expected_ > handed_ ? expected_ - handed_ : 0;
  }

  bool is_readable() const override { return has_buffered() || wait_for(sock_, POLLIN, deadline_); }
  bool is_writable() const override {
    return wait_for(sock_, POLLOUT, Clock::now() + seconds(limits_.write_timeout_s));
  }

  ssize_t read(char* ptr, size_t size) override {
    if (has_buffered()) {
      size_t n = std::min(size, buffer_.size() - offset_);
      std::copy(buffer_.data() + offset_, buffer_.data() + offset_ + n, ptr);
      offset_ += n;
      handed_ += n;
      return static_cast<ssize_t>(n);
    }
    Wait waited = wait_for_bytes();
    if (waited != Wait::kReady) {
      if (waited == Wait::kTimeout) t_cut = RequestCut::kTimeout;
      broken_ = true;
      return -1;
    }
    ssize_t n;
    do {
      n = recv(sock_, ptr, size, 0);
    } while (n < 0 && errno == EINTR);
    if (n <= 0) {
      broken_ = true;
      return n;
    }
    handed_ += static_cast<uint64_t>(n);
    return n;
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!wait_for(sock_, POLLOUT, Clock::now() + seconds(limits_.write_timeout_s))) return -1;
    ssize_t n;
    do {
      n = send(sock_, ptr, size, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    address(getpeername, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    address(getsockname, ip, port);
  }
  socket_t socket() const override { return sock_; }

 private:
  // Before the first byte of a request, a stopping server gives up at once.
  Wait wait_for_bytes() {
    auto give_up = [this] { return !any_byte_ && stopping_(); };
    return wait_until(sock_, POLLIN, deadline_, give_up);
  }
  // Appends what the socket has (at most 16 KB); false when it is closed.
  bool receive() {
    size_t old = buffer_.size();
    buffer_.resize(old + (16u << 10));
    ssize_t n;
    do {
      n = recv(sock_, buffer_.data() + old, buffer_.size() - old, 0);
    } while (n < 0 && errno == EINTR);
    buffer_.resize(old + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n <= 0) {
      broken_ = true;
      return false;
    }
    any_byte_ = true;
    return true;
  }

  void address(int (*get)(int, sockaddr*, socklen_t*), std::string& ip, int& port) const {
    sockaddr_storage storage{};
    socklen_t size = sizeof storage;
    ip.clear();
    port = -1;
    if (get(sock_, reinterpret_cast<sockaddr*>(&storage), &size) != 0) return;
    char text[INET6_ADDRSTRLEN] = {};
    if (storage.ss_family == AF_INET) {
      auto* a = reinterpret_cast<sockaddr_in*>(&storage);
      inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
      port = ntohs(a->sin_port);
    } else if (storage.ss_family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
      inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
      port = ntohs(a->sin6_port);
    }
    ip = text;
  }

  int sock_;
  const HttpLimits& limits_;
  std::function<bool()> stopping_;
  Clock::time_point deadline_ = Clock::time_point::max();
  bool broken_ = false;
  bool any_byte_ = false;
  std::string buffer_;  // bytes received and not yet handed to httplib start at offset_
  size_t offset_ = 0;
  uint64_t handed_ = 0;    // bytes of the current request handed to httplib
  uint64_t expected_ = 0;  // its head and declared body
};

// httplib's thread pool, plus the time each socket was accepted and a bound
// on the sockets accepted and not yet done: past it the socket is handed to
// the server on the accepting thread, marked to be refused at once.
class ConnectionPool : public httplib::TaskQueue {
 public:
  ConnectionPool(int threads, int max_connections) : max_(std::max(1, max_connections)) {
    for (int i = 0; i < std::max(1, threads); ++i) threads_.emplace_back([this] { work(); });
  }
  void enqueue(std::function<void()> fn) override {
    {
      std::lock_guard lock(mutex_);
      if (static_cast<int>(jobs_.size()) + busy_ < max_) {
        jobs_.push_back({std::move(fn), Clock::now()});
        wake_.notify_one();
        return;
      }
    }
    t_overflow = true;
    fn();
    t_overflow = false;
  }
  void shutdown() override {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  struct Job {
    std::function<void()> fn;
    Clock::time_point accepted;
  };
  void work() {
    while (true) {
      Job job;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
        ++busy_;
      }
      t_accepted = job.accepted;
      job.fn();
      std::lock_guard lock(mutex_);
      --busy_;
    }
  }

  const int max_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  int busy_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

std::string peer_address(int sock) {
  sockaddr_storage storage{};
  socklen_t size = sizeof storage;
  if (getpeername(sock, reinterpret_cast<sockaddr*>(&storage), &size) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  if (storage.ss_family == AF_INET)
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&storage)->sin_addr, text, sizeof text);
  else if (storage.ss_family == AF_INET6)
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&storage)->sin6_addr, text, sizeof text);
  return text;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 408:
      return "Request Timeout";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 501:
      return "Not Implemented";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Error";
  }
}

// An answer the front gives itself, before httplib has seen the request;
// the connection closes after it, draining at most `linger_bytes` first.
// `message` is the front's own text.
void answer_from_front(BoundedStream& stream, int status, const std::string& message,
                       uint64_t linger_bytes = kLingerSlack) {
  std::string body = nlohmann::json{{"error", message}}.dump() + "\n";
  std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                       "\r\nContent-Type: application/json\r\nConnection: close\r\n"
                       "Content-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n" + body;
  for (size_t sent = 0; sent < answer.size();) {
    ssize_t n = stream.write(answer.data() + sent, answer.size() - sent);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  t_linger_bytes = std::max(t_linger_bytes, linger_bytes);
}

// Closes after an error answer without losing it: a close with unread bytes
// sends a reset, which can discard the answer before its reader sees it. So
// the write side is shut first and what the sender still sends is read and
// dropped, until it closes, is quiet for `quiet_s`, `linger_s` have passed,
// or `bytes` were dropped (what it declared and was refused, and a little
// more: a flood of header lines is not read on for seconds).
void close_lingering(int sock, uint64_t bytes, double linger_s, double quiet_s) {
  ::shutdown(sock, SHUT_WR);
  auto until = Clock::now() + seconds(linger_s);
  char scratch[65536];
  for (uint64_t dropped = 0; dropped < bytes;) {
    if (!wait_for(sock, POLLIN, std::min(until, Clock::now() + seconds(quiet_s)))) break;
    ssize_t n = recv(sock, scratch, sizeof scratch, 0);
    if (n <= 0) break;
    dropped += static_cast<uint64_t>(n);
  }
}

}  // namespace

BoundedHttpServer::BoundedHttpServer(HttpLimits limits, RefusalListener on_refused)
    : limits_(limits), on_refused_(std::move(on_refused)) {
  int threads = limits_.threads, max = limits_.max_connections;
  new_task_queue = [threads, max] { return new ConnectionPool(threads, max); };
  set_keep_alive_max_count(std::max<size_t>(1, limits_.max_keep_alive_requests));
  // Runs for every answer httplib writes, after the handlers and before the
  // headers go out: an error, or a request whose body was not read to exactly
  // its declared end, ends the connection (what follows is not a request).
  uint64_t max_body = limits_.max_body_bytes;
  httplib::Server::set_post_routing_handler([max_body](const httplib::Request&,
                                                       httplib::Response& res) {
    bool unread = t_stream && !t_stream->read_as_declared();
    if (res.status >= 400 || unread || t_close) {
      t_close = true;
      if (res.status >= 400 || unread)
        t_linger_bytes = std::max(
            t_linger_bytes, kLingerSlack + (t_stream ? std::min(t_stream->unread(), max_body) : 0));
      res.headers.erase("Keep-Alive");
      res.headers.erase("Connection");
      res.set_header("Connection", "close");
    }
  });
}

void BoundedHttpServer::raise_backlog() {
  socket_t sock = svr_sock_;
  if (sock != INVALID_SOCKET) ::listen(sock, limits_.listen_backlog);
}

std::chrono::steady_clock::time_point BoundedHttpServer::request_deadline() {
  return t_deadline;
}

RequestCut BoundedHttpServer::request_cut() {
  return t_cut;
}

void BoundedHttpServer::close_after_reply() {
  t_close = true;
}

void BoundedHttpServer::extend_request_deadline(std::chrono::steady_clock::duration extra) {
  if (t_deadline != Clock::time_point::max()) t_deadline += extra;
  if (t_stream) t_stream->extend(extra);
}

void BoundedHttpServer::refuse(socket_t sock, const char* reason) {
  static const std::string body = "{\"error\":\"too many connections; retry later\"}\n";
  static const std::string answer =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
      "Retry-After: 1\r\nConnection: close\r\nContent-Length: " +
      std::to_string(body.size()) + "\r\n\r\n" + body;
  // Never blocks: the accepting thread may be the one refusing.
  (void)send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (on_refused_) on_refused_(reason, nullptr);
}

void BoundedHttpServer::penalize(const std::string& peer) {
  if (limits_.max_connections_per_peer <= 0 || limits_.penalty_s <= 0) return;
  std::lock_guard lock(peers_mutex_);
  if (penalized_.size() > 10000) penalized_.clear();  // bounded, whatever the peers
  penalized_[peer] = Clock::now() + seconds(limits_.penalty_s);
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  t_linger_bytes = 0;
  try {
    serve(sock);
  } catch (...) {
    // Whatever escaped httplib's own handlers (an error handler, a logger):
    // the connection is dropped, the service stays up.
    json_log({{"msg", "request failed inside the HTTP library; connection closed"}});
  }
  if (t_linger_bytes > 0)
    close_lingering(sock, t_linger_bytes, limits_.linger_s, limits_.linger_quiet_s);
  t_linger_bytes = 0;
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

void BoundedHttpServer::serve(socket_t sock) {
  if (t_overflow) return refuse(sock, "too-many-connections");
  std::string peer = peer_address(sock);
  bool penalized = false;
  if (limits_.max_connections_per_peer > 0) {
    std::lock_guard lock(peers_mutex_);
    if (auto it = penalized_.find(peer); it != penalized_.end()) {
      penalized = Clock::now() < it->second;
      if (!penalized) penalized_.erase(it);
    }
    int& n = peers_[peer];
    if (n >= limits_.max_connections_per_peer) return refuse(sock, "too-many-from-peer");
    ++n;
  }
  struct PeerSlot {
    BoundedHttpServer& server;
    const std::string& peer;
    ~PeerSlot() {
      if (server.limits_.max_connections_per_peer <= 0) return;
      std::lock_guard lock(server.peers_mutex_);
      if (--server.peers_[peer] <= 0) server.peers_.erase(peer);
    }
  } slot{*this, peer};

  HeadLimits head_limits{limits_.max_header_bytes, limits_.max_header_lines,
                         limits_.max_line_bytes};
  double head_timeout_s = limits_.request_timeout_s;
  if (penalized) {
    head_limits.max_bytes = std::min(head_limits.max_bytes, limits_.penalized_max_header_bytes);
    head_limits.max_fields = std::min(head_limits.max_fields, limits_.penalized_max_header_lines);
    head_timeout_s = std::min(head_timeout_s, limits_.penalized_head_timeout_s);
  }
  auto stopping = [this] { return svr_sock_ == INVALID_SOCKET; };
  BoundedStream stream(sock, limits_, stopping);
  t_stream = &stream;
  struct Forget {
    ~Forget() {
      t_stream = nullptr;
      t_deadline = Clock::time_point::max();
      t_cut = RequestCut::kNone;
    }
  } forget;
  auto cut = [&](const char* reason) {
    if (on_refused_) on_refused_(reason, nullptr);
    penalize(peer);
  };
  Clock::time_point accepted = t_accepted == Clock::time_point::min() ? Clock::now() : t_accepted;
  for (size_t served = 0; served < limits_.max_keep_alive_requests; ++served) {
    Clock::time_point start;
    if (served == 0) {
      start = accepted;
    } else {
      // Idle between requests: at most the keep-alive time, less when stopping.
      if (!stream.has_buffered() &&
          !wait_for(sock, POLLIN, Clock::now() + seconds(limits_.keep_alive_timeout_s), stopping))
        return;
      start = Clock::now();
    }
    Clock::time_point deadline = start + seconds(limits_.request_timeout_s);
    stream.start_request(std::min(deadline, start + seconds(head_timeout_s)));
    t_deadline = deadline;
    t_cut = RequestCut::kNone;
    t_close = false;

    size_t head_size = 0;
    switch (stream.read_head(head_limits, head_size)) {
      case BoundedStream::Head::kWhole:
        break;
      case BoundedStream::Head::kClosed:
        return;
      case BoundedStream::Head::kTimeout:
        // Silence from the start is closed without an answer.
        if (stream.any_byte())
          answer_from_front(stream, 408,
                            "the request did not arrive within " +
                                std::to_string(static_cast<int>(head_timeout_s)) + " s");
        return cut("timeout");
      case BoundedStream::Head::kTooLarge:
        answer_from_front(stream, 431, "request headers too large or too many");
        return cut("header-too-large");
    }
    auto checked = check_request_head(stream.head(head_size), head_limits);
    if (auto* refused = std::get_if<HeadRefusal>(&checked)) {
      answer_from_front(stream, refused->status, refused->message);
      if (on_refused_) on_refused_(refused->reason, nullptr);
      return;
    }
    const RequestHead& head = std::get<RequestHead>(checked);
    if (head.framing == BodyFraming::kLength && head.content_length > limits_.max_body_bytes) {
      if (on_refused_) on_refused_("too-large", &head);
      // A sender that writes its whole body before reading reads the 413 after it.
      answer_from_front(stream, 413,
                        "payload larger than " + std::to_string(limits_.max_body_bytes) +
                            " bytes (GitHub sends at most 25 MB)",
                        std::min(head.content_length, limits_.max_body_bytes) + kLingerSlack);
      return;
    }
    stream.expect(head.framing == BodyFraming::kChunked
                      ? BoundedStream::kUnknown
                      : head_size +
                            (head.framing == BodyFraming::kLength ? head.content_length : 0));
    stream.set_deadline(deadline);  // the body has what is left of the request's time
    // A chunked body's end is httplib's reading alone: nothing after it is read.
    bool chunked = head.framing == BodyFraming::kChunked;
    bool closed = false;
    bool last = served + 1 == limits_.max_keep_alive_requests || stopping() || chunked;
    bool answered = process_request(stream, last, closed, nullptr);
    if (t_cut != RequestCut::kNone) cut("timeout");
    if (!answered || closed || last || t_cut != RequestCut::kNone || stream.broken() || t_close ||
        !stream.read_as_declared())
      return;
  }
}

}  // namespace kgate::webhooks
