#pragma once
// `kgate serve`: the HTTP front door plus the queue, the workers and the
// notifier, wired together. Invariants:
//  - a delivery is answered 2xx only after it is stored (and routed, or
//    stored as pending for routing that waits for GitHub) on disk;
//  - a request that fails a check (method, content type, headers, signature,
//    size, JSON) is answered 4xx and stores nothing;
//  - no request ends the process or stalls intake: every reply built from
//    request bytes is printable text, anything thrown while serving becomes a
//    generic 500, and the front bounds time, headers and connections
//    (http_front.h) and the bodies held at once (memory_budget.h);
//  - stop() stops intake first, then drains the workers and the notices until
//    --drain-timeout after the stop, so nothing accepted is lost, nothing is
//    left "running", and unsent notices stay in the queue for the next start.
#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "webhooks/actions_dispatcher.h"
#include "webhooks/delivery_recovery.h"
#include "webhooks/http_front.h"
#include "webhooks/job_executor.h"
#include "webhooks/job_queue.h"
#include "webhooks/metrics.h"
#include "webhooks/notifier.h"
#include "webhooks/pending_router.h"
#include "webhooks/worker_pool.h"

namespace kgate::webhooks {

enum class DispatchMode { kLocal, kActions };

struct ServiceOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (see WebhookService::port())
  std::filesystem::path repo;
  std::filesystem::path state_dir;  // queue.db, notices.jsonl, jobs/<id>/
  std::vector<std::string> secrets;
  Durability durability = Durability::kNormal;  // with recovery; see docs/webhooks.md
  DispatchMode dispatch = DispatchMode::kLocal;
  HttpLimits http;
  PendingRouterOptions pending;
  WorkerOptions workers;
  CommandExecutorOptions command;        // local dispatch (repo and state_dir filled in by open)
  ActionsDispatchOptions actions;        // actions dispatch
  size_t max_body_bytes = 25u << 20;     // GitHub caps payloads at 25 MB
  size_t body_memory_bytes = 96u << 20;  // request bodies (and their parse) held at once
  const PermissionLookup* permissions = nullptr;  // null: author_association (fails closed)
  Notifier* notifier = nullptr;                   // null: FileNotifier on state_dir/notices.jsonl
  // Redelivery recovery (delivery_recovery.h): a sweep at start, then every
  // recovery_interval_s (0: at start only). Null: off (no GitHub credentials).
  DeliveryRecovery* recovery = nullptr;
  double recovery_interval_s = 600;
};

class WebhookService {
 public:
  // Opens the queue, re-queues jobs a dead process left running, binds the port.
  static Result<std::unique_ptr<WebhookService>> open(ServiceOptions options);
  ~WebhookService();

  int port() const { return port_; }
  // Serves until stop(); then drains workers and returns.
  Status run();
  // Stops intake; run() then drains and returns. Safe from any thread, not
  // from a signal handler.
  void stop();

  JobQueue& queue() { return *queue_; }

 private:
  explicit WebhookService(ServiceOptions options);
  void install_routes();
  void error_reply(const httplib::Request& req, httplib::Response& res);
  // A delivery the front refused for its Content-Length: counted and logged as one.
  void refused_too_large(const RequestHead& head);
  void receive_delivery(const httplib::Request& req, httplib::Response& res,
                        const httplib::ContentReader& reader);
  void handle_delivery(const httplib::Request& req, const std::string& body,
                       httplib::Response& res);
  Routed route_at_intake(const IncomingDelivery& delivery, RoutingContext& context);
  Routing route_event(const WebhookEvent& event, RoutingContext& context);
  void recovery_loop();
  std::chrono::steady_clock::time_point drain_deadline();

  ServiceOptions options_;
  std::unique_ptr<JobQueue> queue_;
  std::unique_ptr<JobExecutor> executor_;
  std::unique_ptr<Notifier> own_notifier_;
  Notifier* notifier_ = nullptr;
  std::unique_ptr<PermissionLookup> own_permissions_;
  const PermissionLookup* permissions_ = nullptr;
  Metrics metrics_;
  std::unique_ptr<class KernelFilesCache> kernels_;
  std::unique_ptr<class DeliveryIntake> intake_;
  std::unique_ptr<WorkerPool> workers_;
  std::unique_ptr<class NoticeSender> notices_;
  std::unique_ptr<PendingRouter> pending_;
  std::unique_ptr<class MemoryBudget> budget_;
  std::unique_ptr<BoundedHttpServer> server_;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::mutex stop_mutex_;
  std::chrono::steady_clock::time_point stopped_at_ = std::chrono::steady_clock::time_point::max();
  std::mutex recovery_mutex_;
  bool recovery_stopping_ = false;
  std::condition_variable recovery_wake_;
  std::thread recovery_thread_;
};

}  // namespace kgate::webhooks
