#include "webhooks/pending_router.h"

#include <algorithm>
#include <cmath>

#include "core/retry_policy.h"
#include "webhooks/json_log.h"

namespace kgate::webhooks {
namespace {

// Passes answers through and notes whether one was unknown because GitHub
// could not be asked (worth another attempt), not because it said no.
class WatchedPermissions : public PermissionLookup {
 public:
  explicit WatchedPermissions(const PermissionLookup& inner) : inner_(inner) {}
  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& association) const override {
    std::optional<bool> write = inner_.has_write(repository, user, association);
    if (!write && !inner_.answer_at_hand(repository, user)) unanswered = true;
    return write;
  }
  std::string why_unknown(const std::string& repository, const std::string& user,
                          const std::string& association) const override {
    return inner_.why_unknown(repository, user, association);
  }
  mutable bool unanswered = false;

 private:
  const PermissionLookup& inner_;
};

}  // namespace

std::optional<bool> IntakePermissions::has_write(const std::string& repository,
                                                 const std::string& user,
                                                 const std::string& association) const {
  if (inner_.answer_at_hand(repository, user))
    return inner_.has_write(repository, user, association);
  if (waiting_for_.empty()) waiting_for_ = "GitHub's answer on " + user + "'s write access";
  return true;
}

PendingRouter::PendingRouter(JobQueue& queue, const PermissionLookup& permissions, RouteFn route,
                             std::function<void()> on_routed, PendingRouterOptions options)
    : queue_(queue),
      permissions_(permissions),
      route_(std::move(route)),
      on_routed_(std::move(on_routed)),
      options_(options) {}

PendingRouter::~PendingRouter() {
  stop();
}

void PendingRouter::start() {
  thread_ = std::thread([this] { run(); });
}

void PendingRouter::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void PendingRouter::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PendingRouter::run() {
  while (true) {
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      woken_ = false;
    }
    auto due = queue_.due_pending(unix_now(), 20);
    if (!due.ok())
      json_log({{"msg", "cannot read pending deliveries"}, {"error", due.error().message}});
    if (due.ok()) {
      for (const PendingDelivery& d : *due) {
        {
          std::lock_guard lock(mutex_);
          if (stopping_) return;
        }
        route_one(d);
      }
      if (due->size() == 20) continue;
    }
    std::unique_lock lock(mutex_);
    // Postponed deliveries come due by time: look again every second.
    wake_.wait_for(lock, std::chrono::seconds(1), [this] { return woken_ || stopping_; });
  }
}

void PendingRouter::route_one(const PendingDelivery& d) {
  nlohmann::json line = {
      {"msg", "pending delivery routed"}, {"delivery", d.id}, {"event", d.event}};
  Routing routing;
  auto event = parse_webhook_event(d.event, d.body);
  if (!event.ok()) {
    routing.ignored = event.error().message;
  } else {
    RoutingContext context = queue_.reading_context();
    auto current = context.known_pull;
    const std::vector<PullState>& pinned = d.pinned;
    context.known_pull = [&pinned, current](const std::string& repo,
                                            int64_t number) -> std::optional<PullState> {
      for (const PullState& p : pinned)
        if (p.repository == repo && p.number == number) return p;
      return current(repo, number);
    };
    WatchedPermissions permissions(permissions_);
    context.permissions = &permissions;
    routing = route_(*event, context);
    if (permissions.unanswered && d.attempts + 1 < options_.max_attempts) {
      double wait = backoff_delay(options_.first_retry_s, options_.max_retry_s, d.attempts + 1,
                                  /*jitter=*/0, nullptr);  // core/retry_policy.h
      Status postponed = queue_.postpone_pending(d.id, unix_now() + wait);
      json_log({{"msg", "pending delivery waits for GitHub"},
                {"delivery", d.id},
                {"event", d.event},
                {"attempt", d.attempts + 1},
                {"retry_in_s", wait},
                {"error", postponed.ok() ? "" : postponed.error().message}});
      return;
    }
  }
  Status stored = queue_.finish_pending(d.id, routing);
  line["jobs"] = routing.jobs.size();
  line["notices"] = routing.notices.size();
  line["waited_s"] = unix_now() - d.received_at;
  if (!routing.ignored.empty()) line["ignored"] = routing.ignored;
  if (!stored.ok()) line["error"] = stored.error().message;
  json_log(line);
  if (stored.ok() && on_routed_) on_routed_();
}

}  // namespace kgate::webhooks
