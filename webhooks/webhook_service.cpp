#include "webhooks/webhook_service.h"

#include <httplib.h>

#include <chrono>
#include <cstdlib>
#include <map>

#include "webhooks/delivery_intake.h"
#include "webhooks/json_log.h"
#include "webhooks/kernel_files.h"
#include "webhooks/memory_budget.h"
#include "webhooks/signature.h"
#include "webhooks/webhook_event.h"

namespace kgate::webhooks {
namespace {

using Clock = std::chrono::steady_clock;

bool valid_token(const std::string& s, size_t max, bool allow_upper) {
  if (s.empty() || s.size() > max) return false;
  for (char c : s) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
              c == '.' || (allow_upper && c >= 'A' && c <= 'Z');
    if (!ok) return false;
  }
  return true;
}

void answer(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump() + "\n", "application/json");
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
  if (intake_) intake_->stop();
  if (workers_) workers_->stop();
  {
    std::lock_guard lock(notice_mutex_);
    notices_stopping_ = true;
  }
  notice_wake_.notify_all();
  if (notice_thread_.joinable()) notice_thread_.join();
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

  WebhookService* self = service.get();
  service->workers_ = std::make_unique<WorkerPool>(*service->queue_, *service->executor_,
                                                   service->metrics_, o.workers);
  auto route_delivery = [self](const IncomingDelivery& d, RoutingContext& context) {
    Result<WebhookEvent> event = Error::bad_input("not parsed");
    if (d.parsed) {
      event = *d.parsed;
    } else {
      event = parse_webhook_event(d.event, d.body);
    }
    if (!event.ok()) return Routing{.ignored = event.error().message};
    auto kernels = self->kernels_->get();
    context.kernels = kernels->kernels;
    if (!kernels->manifest_file.empty()) context.manifest_file = kernels->manifest_file;
    context.permissions = self->options_.permissions;
    return route(*event, context);
  };
  service->intake_ = std::make_unique<DeliveryIntake>(*service->queue_, route_delivery, [self] {
    self->workers_->wake();
    self->notice_wake_.notify_all();
  });

  service->budget_ = std::make_unique<MemoryBudget>(o.body_memory_bytes);
  service->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *service->server_;
  int threads = std::max(1, o.http_threads);
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(o.max_body_bytes);
  server.set_keep_alive_max_count(1000);
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
  return service;
}

void WebhookService::install_routes() {
  httplib::Server& server = *server_;
  auto method_not_allowed = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", req.path == "/webhook" ? "POST" : "GET");
    answer(res, 405, {{"error", req.method + " is not allowed on " + req.path}});
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
    res.set_content(metrics_.render(depth), "text/plain; version=0.0.4");
  });

  server.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
    if (res.status != 413) {
      if (res.body.empty())
        answer(res, res.status, {{"error", "HTTP status " + std::to_string(res.status)}});
      return;
    }
    // httplib refuses form-encoded bodies over 8 KB with 413 before our
    // handler runs; for GitHub's form content type the useful answer is 415.
    std::string type = req.get_header_value("Content-Type");
    bool form = type.rfind("application/x-www-form-urlencoded", 0) == 0;
    size_t length = std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
    int status = form && length <= options_.max_body_bytes ? 415 : 413;
    std::string reason = status == 415
                             ? "content type '" + type +
                                   "' is not accepted: set the webhook's content type to "
                                   "application/json in GitHub"
                             : "payload larger than " + std::to_string(options_.max_body_bytes) +
                                   " bytes (GitHub sends at most 25 MB)";
    std::string event = req.get_header_value("X-GitHub-Event");
    metrics_.delivery(valid_token(event, 64, false) ? event : "invalid",
                      status == 415 ? "bad-content-type" : "too-large", 0);
    json_log({{"msg", "delivery"},
              {"event", event},
              {"delivery", req.get_header_value("X-GitHub-Delivery")},
              {"status", status},
              {"outcome", status == 415 ? "bad-content-type" : "too-large"},
              {"reason", reason}});
    answer(res, status, {{"error", reason}});
  });

  // The body is read here rather than by httplib, so that it is read into a
  // buffer of exactly its size, and only once the memory budget has room:
  // several 25 MB deliveries at once wait for each other instead of
  // multiplying the resident memory.
  server.Post("/webhook", [this](const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader& reader) {
    size_t length = std::strtoull(req.get_header_value("Content-Length").c_str(), nullptr, 10);
    if (length > options_.max_body_bytes) {
      // httplib skips the body (reading it into nothing) and refuses it.
      reader([](const char*, size_t) { return true; });
      res.status = 413;  // answered by the error handler
      return;
    }
    // The body plus its parsed form take about twice its size.
    MemoryHold hold(*budget_, std::min(budget_->capacity(), 2 * length + (1u << 20)));
    std::string body;
    body.reserve(length);
    bool complete = reader([&](const char* data, size_t n) {
      body.append(data, n);
      return body.size() <= options_.max_body_bytes;
    });
    if (!complete || body.size() > options_.max_body_bytes) {
      res.set_header("Connection", "close");
      if (body.size() > options_.max_body_bytes) {
        res.status = 413;
      } else {
        answer(res, 400, {{"error", "the request body could not be read"}});
      }
      return;
    }
    handle_delivery(req, body, res);
  });
}

void WebhookService::handle_delivery(const httplib::Request& req, const std::string& body,
                                     httplib::Response& res) {
  {
    auto start = Clock::now();
    std::string event = req.get_header_value("X-GitHub-Event");
    std::string delivery = req.get_header_value("X-GitHub-Delivery");
    nlohmann::json line = {
        {"msg", "delivery"}, {"event", event}, {"delivery", delivery}, {"bytes", body.size()}};
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
    if (stopping_)
      return finish(503, "stopping", {{"error", "shutting down; GitHub can redeliver"}});
    std::string type = req.get_header_value("Content-Type");
    std::string media = type.substr(0, type.find(';'));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    if (media != "application/json") {
      return finish(415, "bad-content-type",
                    {{"error", "content type '" + type +
                                   "' is not accepted: set the webhook's "
                                   "content type to application/json in GitHub"}});
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

    if (options_.permissions) {
      // Ask the permission lookup here, on this request's thread, so that the
      // router (inside the intake's shared commit) finds the answer cached and
      // a slow GitHub delays this delivery only, not the whole batch.
      const PermissionLookup& p = *options_.permissions;
      if (parsed->pull_request && !parsed->pull_request->from_fork())
        (void)p.has_write(parsed->repository, parsed->pull_request->author,
                          parsed->pull_request->author_association);
      if (parsed->comment && parse_comment_command(parsed->comment->body))
        (void)p.has_write(parsed->repository, parsed->comment->author,
                          parsed->comment->author_association);
      if (!parsed->label.empty()) (void)p.has_write(parsed->repository, parsed->sender, "");
    }
    IncomingDelivery incoming{delivery, event, parsed->action, body, &*parsed};
    IntakeResult result = intake_->submit(incoming);
    if (!result.status.ok())
      return finish(503, "store-failed", {{"error", result.status.error().message}});
    switch (result.outcome) {
      case DeliveryOutcome::kDuplicate:
        return finish(200, "duplicate", {{"delivery", delivery}, {"duplicate", true}});
      case DeliveryOutcome::kIgnored:
        line["ignored"] = result.routing.ignored;
        line["notices"] = result.routing.notices.size();
        return finish(202, "ignored",
                      {{"delivery", delivery}, {"jobs", 0}, {"ignored", result.routing.ignored}});
      case DeliveryOutcome::kQueued: {
        nlohmann::json jobs = nlohmann::json::array();
        for (const JobSpec& job : result.routing.jobs) jobs.push_back(job.to_json());
        line["jobs"] = jobs;
        return finish(202, "queued",
                      {{"delivery", delivery}, {"jobs", result.routing.jobs.size()}});
      }
    }
  }
}

void WebhookService::notifier_loop() {
  // A notice the forge keeps refusing (a deleted pull request, a missing
  // permission) is given up after a few tries, so it cannot hold back the
  // notices behind it; a forge that is down delays all of them instead.
  constexpr int kMaxNoticeFailures = 5;
  std::map<int64_t, int> failures;
  while (true) {
    auto notices = queue_->unsent_notices(100);
    if (notices.ok()) {
      for (const auto& [id, notice] : *notices) {
        Status sent = notifier_->notify(notice);
        if (!sent.ok()) {
          int failed = ++failures[id];
          bool give_up = failed >= kMaxNoticeFailures;
          json_log({{"msg", give_up ? "notice dropped after repeated failures"
                                    : "notice not sent, will retry"},
                    {"kind", notice.kind},
                    {"repository", notice.repository},
                    {"pull_number", notice.pull_number},
                    {"attempts", failed},
                    {"error", sent.error().message}});
          if (!give_up) break;
          failures.erase(id);
          (void)queue_->mark_notice_sent(id);
          continue;
        }
        failures.erase(id);
        (void)queue_->mark_notice_sent(id);
        json_log({{"msg", "notice"},
                  {"kind", notice.kind},
                  {"repository", notice.repository},
                  {"pull_number", notice.pull_number},
                  {"head_sha", notice.head_sha}});
      }
    }
    std::unique_lock lock(notice_mutex_);
    if (notices_stopping_ && notices.ok() && notices->empty()) return;
    notice_wake_.wait_for(lock, std::chrono::seconds(1));
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
  notice_thread_ = std::thread([this] { notifier_loop(); });
  if (options_.recovery) recovery_thread_ = std::thread([this] { recovery_loop(); });
  json_log({{"msg", "listening"},
            {"host", options_.host},
            {"port", port_},
            {"workers", options_.workers.workers},
            {"durability", options_.durability == Durability::kFull ? "full" : "normal"},
            {"recovery", options_.recovery ? options_.recovery->options().hook_path : "off"},
            {"dispatch", options_.dispatch == DispatchMode::kActions ? "actions" : "local"}});
  bool served = server_->listen_after_bind();
  {
    std::lock_guard lock(recovery_mutex_);
    recovery_stopping_ = true;
  }
  recovery_wake_.notify_all();
  if (recovery_thread_.joinable()) recovery_thread_.join();
  // Intake is closed: store what is in flight, then let running jobs finish or give them back.
  intake_->stop();
  json_log({{"msg", "intake stopped; draining workers"}});
  workers_->stop();
  {
    std::lock_guard lock(notice_mutex_);
    notices_stopping_ = true;
  }
  notice_wake_.notify_all();
  if (notice_thread_.joinable()) notice_thread_.join();
  json_log({{"msg", "stopped"}});
  if (!served && !stopping_) return Error::infrastructure("the HTTP server stopped unexpectedly");
  return {};
}

void WebhookService::stop() {
  stopping_ = true;
  if (server_) server_->stop();
}

}  // namespace kgate::webhooks
