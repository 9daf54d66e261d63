#pragma once
// The durable queue: deliveries, jobs, pull requests seen, approvals and
// notices, in one SQLite database (WAL). Invariants:
//  - a delivery id is stored at most once, and its jobs are inserted in the
//    same transaction, so a delivery is routed exactly once;
//  - a job is in exactly one state (queued, running, done, failed); a job left
//    "running" by a process that died is queued again by recover();
//  - an approval is keyed by (repository, head commit) and never moves to
//    another commit;
//  - a delivery whose routing needs an answer not at hand (a GitHub
//    permission lookup) is stored as "pending" with the pull requests as the
//    router saw them, and routed later by finish_pending(), exactly once;
//  - claim() takes the lowest priority number first (job_priority()), oldest
//    first within a priority.
// All access goes through one connection under a mutex: the work per call is
// small, and one connection lets the intake batch many deliveries per fsync.
#include <sqlite3.h>

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/status.h"
#include "webhooks/job.h"
#include "webhooks/router.h"
#include "webhooks/webhook_event.h"

namespace kgate::webhooks {

enum class Durability {
  kFull,    // fsync on every commit: an answered delivery survives power loss
  kNormal,  // fsync at checkpoints: survives a crash of the process; after a power
            // loss the last commits come back through redelivery recovery
};

struct StoredJob {
  int64_t id = 0;
  std::string delivery;
  JobSpec spec;
  std::string state;  // queued, running, done, failed
  int attempts = 0;   // started attempts
  std::string last_error;
  std::string outcome;  // done: "passed", "check-failed"; failed: why
  int priority = 1;     // job_priority(spec.kind)
  int preemptions = 0;  // times a gate stopped it (requeue(id, true))
};

// One delivery handed to the intake, already verified and parsed.
struct IncomingDelivery {
  std::string id;
  std::string event;
  std::string action;
  std::string_view body;                 // the raw body, stored as received
  const WebhookEvent* parsed = nullptr;  // the body parsed (the router parses it when null)
};

enum class DeliveryOutcome { kQueued, kIgnored, kDuplicate, kPending };

// The intake router's answer for one delivery.
struct Routed {
  Routing routing;
  // Non-empty: route it later (and why); `routing` is then not stored.
  std::string deferred;
  // The pull requests as known at intake, for the later routing: a command
  // acts on the head its author saw, not on one pushed while it waited.
  std::vector<PullState> pinned;
};

// A delivery stored but not routed yet.
struct PendingDelivery {
  std::string id, event, body;
  std::vector<PullState> pinned;
  int attempts = 0;
  double received_at = 0;
};

class JobQueue {
 public:
  static Result<std::unique_ptr<JobQueue>> open(const std::filesystem::path& file,
                                                Durability durability);
  ~JobQueue();
  JobQueue(const JobQueue&) = delete;
  JobQueue& operator=(const JobQueue&) = delete;

  // Stores each delivery not seen before, routes it with `router` (which gets
  // a RoutingContext reading this database) and stores the result, all in one
  // transaction (one fsync for the batch). `results` gets one outcome per
  // delivery; on failure nothing of the batch is stored.
  using RouteFn = std::function<Routed(const IncomingDelivery&, RoutingContext&)>;
  Status accept_batch(const std::vector<const IncomingDelivery*>& deliveries, const RouteFn& router,
                      std::vector<std::pair<DeliveryOutcome, Routing>>& results);

  // Pending deliveries whose time has come, oldest first.
  Result<std::vector<PendingDelivery>> due_pending(double now, int limit);
  // Stores a pending delivery's routing (jobs, approvals, notices; not the
  // pull request's state, which newer events own) and ends its pending state.
  Status finish_pending(const std::string& id, const Routing& routing);
  Status postpone_pending(const std::string& id, double not_before);
  Result<int64_t> pending_count();
  // A RoutingContext whose lookups read this queue (each under the lock),
  // for routing outside accept_batch.
  RoutingContext reading_context();

  // Moves jobs left running by a dead process back to queued; returns how many.
  Result<int> recover();

  // Claims the queued job of lowest priority number (then oldest) whose
  // retry time has come, among priorities up to `max_priority`.
  Result<std::optional<StoredJob>> claim(int worker, double now,
                                         int max_priority = kLongJobPriority);
  // Whether a job of priority up to `max_priority` is queued and due.
  Result<bool> has_due(int max_priority, double now);
  Status complete(int64_t id, const std::string& outcome, double now);
  Status retry_later(int64_t id, const std::string& error, double not_before);
  Status fail(int64_t id, const std::string& error, double now);
  // A job interrupted by shutdown (or stopped for a gate: `preempted`):
  // queued again, the attempt not counted.
  Status requeue(int64_t id, bool preempted = false);

  // The oldest notices not yet sent; mark each sent once the Notifier took it.
  Result<std::vector<std::pair<int64_t, Notice>>> unsent_notices(int limit);
  Status mark_notice_sent(int64_t id);
  Result<std::map<std::string, int64_t>> job_counts();  // by state
  Result<std::vector<StoredJob>> jobs();
  Result<int64_t> delivery_count();
  Result<bool> has_delivery(const std::string& id);
  // Where redelivery recovery starts looking: the time the newest stored
  // delivery was received, or, with none stored yet, when this queue was
  // created (so a new service never asks for GitHub's older history).
  Result<double> recovery_since();

 private:
  explicit JobQueue(sqlite3* db) : db_(db) {}
  Status exec(const char* sql);
  Status migrate();
  Status store_routing(const std::string& delivery, const Routing& routing, double now,
                       bool pull_update);
  // Lookups for routing; the caller holds mutex_.
  std::optional<PullState> known_pull_locked(const std::string& repo, int64_t number);
  bool is_approved_locked(const std::string& repo, const std::string& sha);
  std::optional<PullState> pull_with_head_locked(const std::string& repo, const std::string& sha);
  Status finish(int64_t id, const std::string& state, const std::string& error, double now);

  void checkpoint_loop(std::filesystem::path file);

  std::mutex mutex_;
  sqlite3* db_;
  // WAL checkpoints run on their own connection and thread, so the copy back
  // into the database file never lands inside a delivery's commit.
  std::thread checkpointer_;
  std::mutex stop_mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
};

// Seconds since the epoch, as stored in the database.
double unix_now();

}  // namespace kgate::webhooks
