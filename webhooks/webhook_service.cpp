#include "webhooks/webhook_service.h"

#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>

#include "webhooks/delivery_intake.h"
#include "webhooks/json_log.h"
#include "webhooks/kernel_files.h"
#include "webhooks/memory_budget.h"
#include "webhooks/notice_sender.h"
#include "webhooks/signature.h"
#include "webhooks/webhook_event.h"

namespace kgate::webhooks {
namespace {

using Clock = std::chrono::steady_clock;

// A request's bytes as they may appear in a reply or a log line: printable
// ASCII only, at most `max` characters (a header may hold invalid UTF-8 or
// eight kilobytes).
std::string printable(std::string_view text, size_t max = 100) {
  std::string out;
  for (char c : text.substr(0, max)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > max) out += "...";
  return out;
}

bool valid_token(const std::string& s, size_t max, bool allow_upper) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.' || (allow_upper && c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

// Never throws: text that is not UTF-8 is replaced, not refused.
void answer(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                  "application/json");
}

// The reply ends the connection: what follows it on the socket is not a request.
void close_connection(httplib::Response& res) {
  res.set_header("Connection", "close");
  BoundedHttpServer::close_after_reply();
}

// Anything a handler threw: a 500 that says nothing of what it was.
void internal_error(httplib::Response& res) {
  res.headers.clear();
  res.status = 500;
  close_connection(res);
  res.set_content("{\"error\":\"internal error; the delivery was not stored\"}\n",
                  "application/json");
}

}  // namespace

WebhookService::WebhookService(ServiceOptions options) : options_(std::move(options)) {}

WebhookService::~WebhookService() {
  stop();
  {
    std::lock_guard lock(recovery_mutex_);
    recovery_stopping_ = true;
  }
  recovery_wake_.notify_all();
  if (recovery_thread_.joinable()) recovery_thread_.join();
  if (pending_) pending_->stop();
  if (intake_) intake_->stop();
  if (workers_) workers_->stop(drain_deadline());
  if (notices_) {
    notices_->request_stop(drain_deadline());
    notices_->join();
  }
}

std::chrono::steady_clock::time_point WebhookService::drain_deadline() {
  std::lock_guard lock(stop_mutex_);
  if (stopped_at_ == Clock::time_point::max()) stopped_at_ = Clock::now();
  return stopped_at_ + std::chrono::duration_cast<Clock::duration>(
                           std::chrono::duration<double>(options_.workers.drain_timeout_s));
}

Routing WebhookService::route_event(const WebhookEvent& event, RoutingContext& context) {
  auto kernels = kernels_->get();
  context.kernels = kernels->kernels;
  if (!kernels->manifest_file.empty()) context.manifest_file = kernels->manifest_file;
  return route(event, context);
}

Routed WebhookService::route_at_intake(const IncomingDelivery& d, RoutingContext& shared) {
  Result<WebhookEvent> event = Error::bad_input("not parsed");
  if (d.parsed) {
    event = *d.parsed;
  } else {
    event = parse_webhook_event(d.event, d.body);
  }
  Routed out;
  if (!event.ok()) {
    out.routing.ignored = event.error().message;
    return out;
  }
  // The pull requests the router looks at are remembered, so that a delivery
  // routed later acts on the heads known now.
  RoutingContext context = shared;
  context.known_pull = [&](const std::string& repo, int64_t number) {
    auto pull = shared.known_pull(repo, number);
    if (pull) out.pinned.push_back(*pull);
    return pull;
  };
  IntakePermissions permissions(*permissions_);
  context.permissions = &permissions;
  out.routing = route_event(*event, context);
  out.deferred = permissions.waiting_for();
  return out;
}

Result<std::unique_ptr<WebhookService>> WebhookService::open(ServiceOptions options) {
  if (options.secrets.empty())
    return Error::bad_input(
        "no webhook secret configured (KGATE_WEBHOOK_SECRET or KGATE_WEBHOOK_SECRET_FILE)");
  std::unique_ptr<WebhookService> service(new WebhookService(std::move(options)));
  ServiceOptions& o = service->options_;
  auto queue = JobQueue::open(o.state_dir / "queue.db", o.durability);
  if (!queue.ok()) return queue.error();
  service->queue_ = std::move(*queue);
  auto recovered = service->queue_->recover();
  if (!recovered.ok()) return recovered.error();
  if (*recovered > 0)
    json_log(
        {{"msg", "jobs left running by a previous process queued again"}, {"jobs", *recovered}});

  if (o.dispatch == DispatchMode::kActions) {
    service->executor_ = std::make_unique<ActionsDispatcher>(o.actions);
  } else {
    o.command.repo = o.repo;
    o.command.state_dir = o.state_dir;
    // The queue decides what runs: a job (pull-request code) must not read or
    // write it. Hiding it closes the folders above it to new entries, which
    // jobs need inside the repository (its state under .kgate/).
    std::error_code ec;
    auto state = std::filesystem::weakly_canonical(o.state_dir, ec);
    auto repo = std::filesystem::weakly_canonical(o.repo, ec);
    auto [r, s] = std::mismatch(repo.begin(), repo.end(), state.begin(), state.end());
    if (r == repo.end()) {
      json_log({{"msg", "jobs can write the queue"},
                {"reason", "the state folder is inside the repository"},
                {"advice", "pass --state-dir a folder outside the repository"}});
    } else {
      for (const char* name :
           {"queue.db", "queue.db-wal", "queue.db-shm", "queue.db-journal", "notices.jsonl"})
        o.command.hidden_files.push_back(o.state_dir / name);
    }
    service->executor_ = std::make_unique<CommandJobExecutor>(o.command);
  }
  if (o.notifier) {
    service->notifier_ = o.notifier;
  } else {
    service->own_notifier_ = std::make_unique<FileNotifier>(o.state_dir / "notices.jsonl");
    service->notifier_ = service->own_notifier_.get();
  }
  service->kernels_ = std::make_unique<KernelFilesCache>(o.repo);
  if (auto kernels = service->kernels_->get(); !kernels->error.empty())
    json_log({{"msg", "push events will queue no kernel jobs"}, {"reason", kernels->error}});

  if (o.permissions) {
    service->permissions_ = o.permissions;
  } else {
    service->own_permissions_ = std::make_unique<AuthorAssociationPermissions>();
    service->permissions_ = service->own_permissions_.get();
  }

  WebhookService* self = service.get();
  service->workers_ = std::make_unique<WorkerPool>(*service->queue_, *service->executor_,
                                                   service->metrics_, o.workers);
  service->notices_ = std::make_unique<NoticeSender>(*service->queue_, *service->notifier_);
  auto routed = [self] {
    self->workers_->wake();
    self->notices_->wake();
  };
  service->pending_ = std::make_unique<PendingRouter>(
      *service->queue_, *service->permissions_,
      [self](const WebhookEvent& event, RoutingContext& context) {
        return self->route_event(event, context);
      },
      routed, o.pending);
  service->intake_ = std::make_unique<DeliveryIntake>(
      *service->queue_,
      [self](const IncomingDelivery& d, RoutingContext& context) {
        return self->route_at_intake(d, context);
      },
      [self, routed] {
        routed();
        self->pending_->wake();
      });

  service->budget_ = std::make_unique<MemoryBudget>(o.body_memory_bytes);
  o.http.max_body_bytes = o.max_body_bytes;  // a longer Content-Length: 413 from the front
  service->server_ = std::make_unique<BoundedHttpServer>(
      o.http, [self](const char* reason, const RequestHead* head) {
        self->metrics_.connection_refused(reason);
        if (head && std::string_view(reason) == "too-large") self->refused_too_large(*head);
      });
  BoundedHttpServer& server = *service->server_;
  server.set_payload_max_length(o.max_body_bytes);
  server.set_tcp_nodelay(true);
  service->install_routes();
  if (o.port == 0) {
    service->port_ = server.bind_to_any_port(o.host);
  } else if (server.bind_to_port(o.host, o.port)) {
    service->port_ = o.port;
  } else {
    service->port_ = -1;
  }
  if (service->port_ <= 0)
    return Error::infrastructure("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                                 " (in use, or not an address of this host)");
  server.raise_backlog();
  if (o.recovery) o.recovery->set_stopping([self] { return self->stopping_.load(); });
  return service;
}

void WebhookService::install_routes() {
  BoundedHttpServer& server = *server_;
  auto method_not_allowed = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", req.path == "/webhook" ? "POST" : "GET");
    answer(res, 405,
           {{"error", printable(req.method, 16) + " is not allowed on " + printable(req.path)}});
  };
  server.Get("/webhook", method_not_allowed);
  server.Put("/webhook", method_not_allowed);
  server.Delete("/webhook", method_not_allowed);
  server.Patch("/webhook", method_not_allowed);
  server.Post("/healthz", method_not_allowed);
  server.Post("/metrics", method_not_allowed);

  server.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    if (stopping_) return answer(res, 503, {{"status", "stopping"}});
    answer(res, 200, {{"status", "ok"}});
  });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    std::map<std::string, double> depth;
    if (auto counts = queue_->job_counts(); counts.ok())
      for (const auto& [state, n] : *counts) depth[state] = static_cast<double>(n);
    auto pending = queue_->pending_count();
    res.set_content(metrics_.render(depth, pending.ok() ? static_cast<double>(*pending) : 0),
                    "text/plain; version=0.0.4");
  });

  // httplib calls this outside its own try: it must not throw.
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown";
        try {
          if (error) std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        json_log({{"msg", "request handler failed"}, {"error", printable(what, 300)}});
        internal_error(res);
      });
  server.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    try {
      error_reply(req, res);
    } catch (...) {
      internal_error(res);
    }
  });

  // The body is read here rather than by httplib, so that it is read into a
  // buffer of exactly its size, and only once the memory budget has room:
  // several 25 MB deliveries at once wait for each other instead of
  // multiplying the resident memory.
  server.Post("/webhook",
              [this](const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& reader) { receive_delivery(req, res, reader); });
}

void WebhookService::refused_too_large(const RequestHead& head) {
  std::string event(head.field("X-GitHub-Event"));
  metrics_.delivery(valid_token(event, 64, false) ? event : "invalid", "too-large", 0);
  json_log({{"msg", "delivery"},
            {"event", printable(event)},
            {"delivery", printable(head.field("X-GitHub-Delivery"))},
            {"status", 413},
            {"outcome", "too-large"},
            {"reason", "Content-Length " + printable(head.field("Content-Length"), 24) +
                           " is over " + std::to_string(options_.max_body_bytes) + " bytes"}});
}

void WebhookService::error_reply(const httplib::Request& req, httplib::Response& res) {
  // Every answer here closes the connection (the front's rule for errors).
  if (BoundedHttpServer::request_cut() == RequestCut::kTimeout) {
    close_connection(res);
    return answer(
        res, 408,
        {{"error", "the request did not arrive within " +
                       std::to_string(static_cast<int>(options_.http.request_timeout_s)) + " s"}});
  }
  if (res.status != 413) {
    if (res.body.empty())
      answer(res, res.status, {{"error", "HTTP status " + std::to_string(res.status)}});
    return;
  }
  // httplib refuses form-encoded bodies over 8 KB with 413 before our
  // handler runs; for GitHub's form content type the useful answer is 415.
  // (A Content-Length over the limit never gets here: the front answers it.)
  std::string type = req.get_header_value("Content-Type");
  bool form = type.rfind("application/x-www-form-urlencoded", 0) == 0;
  int status = form ? 415 : 413;
  std::string reason = status == 415
                           ? "content type application/x-www-form-urlencoded is not accepted: "
                             "set the webhook's content type to application/json in GitHub"
                           : "payload larger than " + std::to_string(options_.max_body_bytes) +
                                 " bytes (GitHub sends at most 25 MB)";
  std::string event = req.get_header_value("X-GitHub-Event");
  metrics_.delivery(valid_token(event, 64, false) ? event : "invalid",
                    status == 415 ? "bad-content-type" : "too-large", 0);
  json_log({{"msg", "delivery"},
            {"event", printable(event)},
            {"delivery", printable(req.get_header_value("X-GitHub-Delivery"))},
            {"status", status},
            {"outcome", status == 415 ? "bad-content-type" : "too-large"},
            {"reason", reason}});
  answer(res, status, {{"error", reason}});
}

void WebhookService::receive_delivery(const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& reader) {
  if (req.has_header("Content-Encoding") &&
      req.get_header_value("Content-Encoding") != "identity") {
    // GitHub sends plain JSON; a compressed body would be inflated past the budget.
    close_connection(res);
    return answer(res, 415, {{"error", "Content-Encoding is not accepted; send plain JSON"}});
  }
  bool chunked = req.get_header_value("Transfer-Encoding").find("chunked") != std::string::npos;
  size_t length =
      chunked ? 0 : std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
  if (length > options_.max_body_bytes) {
    // The front answers such a length before the body; never read it here either.
    close_connection(res);
    res.status = 413;  // answered by the error handler
    return;
  }
  // Waiting for room is the service's doing, not the sender's: the wait is
  // added to the request's deadline, and bounded by three request timeouts.
  auto deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(3 * options_.http.request_timeout_s));
  auto busy = [&] {
    close_connection(res);
    res.set_header("Retry-After", "1");
    answer(res, 503, {{"error", "too many request bodies in memory; retry"}});
  };
  // The body plus its parsed form take about twice its size; a chunked body
  // (its size not announced) takes its share as it arrives.
  auto share = [](size_t bytes) { return 2 * bytes + (1u << 20); };
  MemoryHold hold(*budget_);
  auto waiting = Clock::now();
  if (!hold.grow_to(share(length), deadline)) return busy();
  BoundedHttpServer::extend_request_deadline(Clock::now() - waiting);
  std::string body;
  body.reserve(length);
  bool over_budget = false;
  bool complete = reader([&](const char* data, size_t n) {
    if (body.size() + n > options_.max_body_bytes) {
      body.resize(options_.max_body_bytes + 1);  // remembered as too large
      return false;
    }
    // Growing while holding a share must not wait (eight growing bodies would
    // each hold a part and wait for the rest): no room now is a 503.
    if (share(body.size() + n) > hold.held() &&
        !hold.grow_to(share(body.size() + n) + (4u << 20), Clock::now())) {
      over_budget = true;
      return false;
    }
    body.append(data, n);
    return true;
  });
  if (!complete || body.size() > options_.max_body_bytes) {
    close_connection(res);
    if (body.size() > options_.max_body_bytes) {
      res.status = 413;
    } else if (over_budget) {
      busy();
    } else if (BoundedHttpServer::request_cut() == RequestCut::kTimeout) {
      answer(res, 408, {{"error", "the request body did not arrive in time"}});
    } else {
      answer(res, 400, {{"error", "the request body could not be read"}});
    }
    return;
  }
  handle_delivery(req, body, res);
}

void WebhookService::handle_delivery(const httplib::Request& req, const std::string& body,
                                     httplib::Response& res) {
  auto start = Clock::now();
  std::string event = req.get_header_value("X-GitHub-Event");
  std::string delivery = req.get_header_value("X-GitHub-Delivery");
  nlohmann::json line = {{"msg", "delivery"},
                         {"event", printable(event)},
                         {"delivery", printable(delivery)},
                         {"bytes", body.size()}};
  auto finish = [&](int status, const std::string& outcome, nlohmann::json body) {
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    metrics_.delivery(valid_token(event, 64, false) ? event : "invalid", outcome, seconds);
    line["status"] = status;
    line["outcome"] = outcome;
    line["ms"] = seconds * 1000;
    if (body.contains("error")) line["reason"] = body["error"];
    json_log(line);
    answer(res, status, body);
  };
  if (stopping_) return finish(503, "stopping", {{"error", "shutting down; GitHub can redeliver"}});
  std::string type = req.get_header_value("Content-Type");
  std::string media = type.substr(0, type.find(';'));
  while (!media.empty() && media.back() == ' ') media.pop_back();
  if (media != "application/json") {
    // The type is not echoed: it is the sender's bytes, maybe not even text.
    return finish(415, "bad-content-type",
                  {{"error",
                    "content type not accepted: set the webhook's content type to "
                    "application/json in GitHub"}});
  }
  std::string signature = req.get_header_value("X-Hub-Signature-256");
  if (signature.empty())
    return finish(401, "unsigned",
                  {{"error", "X-Hub-Signature-256 is missing: set a secret on the webhook"}});
  if (!signature_matches(signature, body, options_.secrets))
    return finish(
        401, "bad-signature",
        {{"error", "X-Hub-Signature-256 does not match the body under any configured secret"}});
  if (!valid_token(event, 64, false))
    return finish(400, "bad-headers", {{"error", "X-GitHub-Event is missing or malformed"}});
  if (!valid_token(delivery, 128, true))
    return finish(400, "bad-headers", {{"error", "X-GitHub-Delivery is missing or malformed"}});
  auto parsed = parse_webhook_event(event, body);
  if (!parsed.ok()) return finish(400, "bad-payload", {{"error", parsed.error().message}});
  line["action"] = parsed->action;
  line["repository"] = parsed->repository;

  // Routing that needs GitHub (a permission not cached) is stored as
  // pending and decided by the PendingRouter: nothing here waits for GitHub.
  IncomingDelivery incoming{delivery, event, parsed->action, body, &*parsed};
  IntakeResult result = intake_->submit(incoming);
  if (!result.status.ok())
    return finish(503, "store-failed", {{"error", result.status.error().message}});
  switch (result.outcome) {
    case DeliveryOutcome::kDuplicate:
      return finish(200, "duplicate", {{"delivery", delivery}, {"duplicate", true}});
    case DeliveryOutcome::kPending:
      line["waiting_for"] = result.routing.ignored;
      return finish(202, "pending", {{"delivery", delivery}, {"pending", true}});
    case DeliveryOutcome::kIgnored:
      line["ignored"] = result.routing.ignored;
      line["notices"] = result.routing.notices.size();
      return finish(202, "ignored",
                    {{"delivery", delivery}, {"jobs", 0}, {"ignored", result.routing.ignored}});
    case DeliveryOutcome::kQueued: {
      nlohmann::json jobs = nlohmann::json::array();
      for (const JobSpec& job : result.routing.jobs) jobs.push_back(job.to_json());
      line["jobs"] = jobs;
      return finish(202, "queued", {{"delivery", delivery}, {"jobs", result.routing.jobs.size()}});
    }
  }
}

void WebhookService::recovery_loop() {
  DeliveryRecovery& recovery = *options_.recovery;
  auto since = queue_->recovery_since();
  if (!since.ok())
    json_log({{"msg", "delivery recovery: no start time, looking back from now"},
              {"error", since.error().message}});
  double from = since.ok() ? *since : unix_now();
  while (true) {
    double started = unix_now();
    auto swept = recovery.sweep(from, [this](const std::string& guid) {
      // An unreadable queue counts as "not stored": a redelivery of a stored
      // delivery is answered as a duplicate, a skipped one would be lost.
      auto stored = queue_->has_delivery(guid);
      return stored.ok() && *stored;
    });
    nlohmann::json line = {{"msg", "delivery recovery"},
                           {"hook", recovery.options().hook_path},
                           {"since", from - recovery.options().margin_s}};
    if (swept.ok()) {
      line["listed"] = swept->listed;
      line["missing"] = swept->missing;
      line["redelivered"] = swept->redelivered;
      line["refused_before"] = swept->refused_before;
      if (!swept->guids.empty()) line["guids"] = swept->guids;
      if (!swept->failures.empty()) line["failures"] = swept->failures;
      // The next sweep looks back from this one's start (minus the margin);
      // a failed sweep leaves the window where it was, so nothing is skipped.
      if (swept->redelivered == swept->missing - swept->refused_before) from = started;
    } else {
      line["error"] = swept.error().message;
    }
    json_log(line);
    std::unique_lock lock(recovery_mutex_);
    if (options_.recovery_interval_s <= 0) return;
    recovery_wake_.wait_for(lock, std::chrono::duration<double>(options_.recovery_interval_s),
                            [this] { return recovery_stopping_; });
    if (recovery_stopping_) return;
  }
}

Status WebhookService::run() {
  workers_->start();
  notices_->start();
  pending_->start();
  if (options_.recovery) recovery_thread_ = std::thread([this] { recovery_loop(); });
  json_log({{"msg", "listening"},
            {"host", options_.host},
            {"port", port_},
            {"workers", options_.workers.workers},
            {"http_threads", options_.http.threads},
            {"durability", options_.durability == Durability::kFull ? "full" : "normal"},
            {"recovery", options_.recovery ? options_.recovery->options().hook_path : "off"},
            {"dispatch", options_.dispatch == DispatchMode::kActions ? "actions" : "local"}});
  bool served = server_->listen_after_bind();
  // Everything below finishes by the drain deadline (--drain-timeout after
  // the stop), plus at most one GitHub call in flight.
  auto deadline = drain_deadline();
  {
    std::lock_guard lock(recovery_mutex_);
    recovery_stopping_ = true;
  }
  recovery_wake_.notify_all();
  if (recovery_thread_.joinable()) recovery_thread_.join();
  pending_->stop();  // what is pending stays in the queue for the next start
  // Intake is closed: store what is in flight, then let running jobs finish or give them back.
  intake_->stop();
  json_log({{"msg", "intake stopped; draining workers and notices"}});
  notices_->request_stop(deadline);
  workers_->stop(deadline);
  notices_->join();
  json_log({{"msg", "stopped"}});
  if (!served && !stopping_) return Error::infrastructure("the HTTP server stopped unexpectedly");
  return {};
}

void WebhookService::stop() {
  {
    std::lock_guard lock(stop_mutex_);
    if (stopped_at_ == Clock::time_point::max()) stopped_at_ = Clock::now();
  }
  stopping_ = true;
  if (server_) server_->stop();
}

}  // namespace kgate::webhooks
