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
#include <vector>

#include "webhooks/json_log.h"

namespace kgate::webhooks {
namespace {

using Clock = std::chrono::steady_clock;

// Set by the connection loop for the handlers running on its thread.
thread_local Clock::time_point t_deadline = Clock::time_point::max();
thread_local RequestCut t_cut = RequestCut::kNone;
thread_local bool t_close = false;
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

// The socket under the front's bounds; httplib reads the head through it a
// byte at a time (from the buffer here) and the body in blocks.
class BoundedStream : public httplib::Stream {
 public:
  BoundedStream(int sock, const HttpLimits& limits, std::function<bool()> stopping)
      : sock_(sock), limits_(limits), stopping_(std::move(stopping)) {}

  void extend(Clock::duration extra) { deadline_ += extra; }
  void start_request(Clock::time_point deadline) {
    deadline_ = deadline;
    in_head_ = true;
    head_bytes_ = head_lines_ = line_length_ = 0;
  }
  bool has_buffered() const { return offset_ < length_; }
  // A read failed or met the end: the connection cannot carry another request.
  bool broken() const { return broken_; }

  bool is_readable() const override { return has_buffered() || wait_for(sock_, POLLIN, deadline_); }
  bool is_writable() const override {
    return wait_for(sock_, POLLOUT, Clock::now() + seconds(limits_.write_timeout_s));
  }

  ssize_t read(char* ptr, size_t size) override {
    if (!has_buffered()) {
      // Before the first byte of a request, a stopping server gives up at once.
      auto give_up = [this] { return in_head_ && head_bytes_ == 0 && stopping_(); };
      Wait waited = wait_until(sock_, POLLIN, deadline_, give_up);
      if (waited != Wait::kReady) {
        if (waited == Wait::kTimeout) t_cut = RequestCut::kTimeout;
        broken_ = true;
        return -1;
      }
      ssize_t n;
      do {
        n = recv(sock_, buffer_, sizeof buffer_, 0);
      } while (n < 0 && errno == EINTR);
      if (n <= 0) {
        broken_ = true;
        return n;
      }
      offset_ = 0;
      length_ = static_cast<size_t>(n);
    }
    size_t n = std::min(size, length_ - offset_);
    if (in_head_ && !count_head(buffer_ + offset_, n)) {
      t_cut = RequestCut::kHeaderTooLarge;
      broken_ = true;
      return -1;
    }
    std::copy(buffer_ + offset_, buffer_ + offset_ + n, ptr);
    offset_ += n;
    return static_cast<ssize_t>(n);
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
  // Counts head bytes and lines up to the blank line that ends the head
  // (possibly shortening `n` to it); false past a limit.
  bool count_head(const char* data, size_t& n) {
    for (size_t i = 0; i < n; ++i) {
      if (++head_bytes_ > limits_.max_header_bytes) return false;
      char c = data[i];
      if (c == '\r') continue;
      if (c != '\n') {
        ++line_length_;
        continue;
      }
      ++head_lines_;
      // The request line and up to max_header_lines header lines, then the blank one.
      if (line_length_ == 0 && head_lines_ > 1) {
        in_head_ = false;
        n = i + 1;  // the body is read (and counted) no more
        return true;
      }
      if (head_lines_ > limits_.max_header_lines + 1) return false;
      line_length_ = 0;
    }
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
  bool in_head_ = true;
  bool broken_ = false;
  size_t head_bytes_ = 0, head_lines_ = 0, line_length_ = 0;
  char buffer_[4096];
  size_t offset_ = 0, length_ = 0;
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

}  // namespace

BoundedHttpServer::BoundedHttpServer(HttpLimits limits, std::function<void(const char*)> on_refused)
    : limits_(limits), on_refused_(std::move(on_refused)) {
  int threads = limits_.threads, max = limits_.max_connections;
  new_task_queue = [threads, max] { return new ConnectionPool(threads, max); };
  set_keep_alive_max_count(std::max<size_t>(1, limits_.max_keep_alive_requests));
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
  if (on_refused_) on_refused_(reason);
}

bool BoundedHttpServer::process_and_close_socket(socket_t sock) {
  try {
    serve(sock);
  } catch (...) {
    // Whatever escaped httplib's own handlers (an error handler, a logger):
    // the connection is dropped, the service stays up.
    json_log({{"msg", "request failed inside the HTTP library; connection closed"}});
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return true;
}

void BoundedHttpServer::serve(socket_t sock) {
  if (t_overflow) return refuse(sock, "too-many-connections");
  std::string peer = peer_address(sock);
  if (limits_.max_connections_per_peer > 0) {
    std::lock_guard lock(peers_mutex_);
    if (auto it = penalized_.find(peer); it != penalized_.end()) {
      if (Clock::now() < it->second) return refuse(sock, "penalized");
      penalized_.erase(it);
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

  auto stopping = [this] { return svr_sock_ == INVALID_SOCKET; };
  BoundedStream stream(sock, limits_, stopping);
  t_stream = &stream;
  struct Forget {
    ~Forget() { t_stream = nullptr; }
  } forget;
  Clock::time_point accepted = t_accepted == Clock::time_point::min() ? Clock::now() : t_accepted;
  for (size_t served = 0; served < limits_.max_keep_alive_requests; ++served) {
    Clock::time_point deadline;
    if (served == 0) {
      deadline = accepted + seconds(limits_.request_timeout_s);
    } else {
      // Idle between requests: at most the keep-alive time, less when stopping.
      if (!stream.has_buffered() &&
          !wait_for(sock, POLLIN, Clock::now() + seconds(limits_.keep_alive_timeout_s), stopping))
        return;
      deadline = Clock::now() + seconds(limits_.request_timeout_s);
    }
    stream.start_request(deadline);
    t_deadline = deadline;
    t_cut = RequestCut::kNone;
    t_close = false;
    bool closed = false;
    bool last = served + 1 == limits_.max_keep_alive_requests || stopping();
    bool answered = process_request(stream, last, closed, nullptr);
    RequestCut cut = t_cut;
    t_deadline = Clock::time_point::max();
    t_cut = RequestCut::kNone;
    if (cut != RequestCut::kNone) {
      if (on_refused_) on_refused_(cut == RequestCut::kTimeout ? "timeout" : "header-too-large");
      if (limits_.max_connections_per_peer > 0 && limits_.penalty_s > 0) {
        std::lock_guard lock(peers_mutex_);
        if (penalized_.size() > 10000) penalized_.clear();  // bounded, whatever the peers
        penalized_[peer] = Clock::now() + seconds(limits_.penalty_s);
      }
    }
    if (!answered || closed || last || cut != RequestCut::kNone || stream.broken() || t_close)
      return;
  }
}

}  // namespace kgate::webhooks
