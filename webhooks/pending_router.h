#pragma once
// Routing that waits for GitHub without holding up intake. A delivery whose
// routing needs a permission answer that is not at hand (a `/kgate` command
// or an approval label from a user whose write access is not cached) is
// stored as pending by the intake and answered at once; PendingRouter then
// asks GitHub on its own thread, routes the delivery, and stores the result.
// When GitHub cannot answer, the delivery is tried again with backoff; after
// the last attempt the answer counts as "no" and the refusal says why.
// Invariants: a pending delivery is routed exactly once (JobQueue::
// finish_pending); its command acts on the pull request heads the intake saw
// (PendingDelivery::pinned); the intake never waits for GitHub.
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "webhooks/job_queue.h"
#include "webhooks/trust_policy.h"

namespace kgate::webhooks {

// The intake's view of a PermissionLookup: answers at hand are given; any
// other question marks the delivery for later (and answers yes meanwhile, so
// the router goes on and reveals which pull requests the delivery is about;
// its routing is then discarded).
class IntakePermissions : public PermissionLookup {
 public:
  explicit IntakePermissions(const PermissionLookup& inner) : inner_(inner) {}
  std::optional<bool> has_write(const std::string& repository, const std::string& user,
                                const std::string& association) const override;
  std::string why_unknown(const std::string& repository, const std::string& user,
                          const std::string& association) const override {
    return inner_.why_unknown(repository, user, association);
  }
  // Non-empty when some answer was not at hand: what is waited for.
  const std::string& waiting_for() const { return waiting_for_; }

 private:
  const PermissionLookup& inner_;
  mutable std::string waiting_for_;
};

struct PendingRouterOptions {
  int max_attempts = 6;       // then an unanswered permission counts as no
  double first_retry_s = 10;  // doubles each attempt (10, 20, 40, 80, 160 s: about 5 minutes)
  double max_retry_s = 300;
};

class PendingRouter {
 public:
  // Routes a parsed event with the context given (the service adds the
  // manifest's kernels).
  using RouteFn = std::function<Routing(const WebhookEvent&, RoutingContext&)>;
  PendingRouter(JobQueue& queue, const PermissionLookup& permissions, RouteFn route,
                std::function<void()> on_routed, PendingRouterOptions options = {});
  ~PendingRouter();
  void start();
  void wake();
  // Returns once the delivery being routed (if any) is done; the rest stay
  // pending in the queue for the next start.
  void stop();

 private:
  void run();
  void route_one(const PendingDelivery& delivery);

  JobQueue& queue_;
  const PermissionLookup& permissions_;
  RouteFn route_;
  std::function<void()> on_routed_;
  PendingRouterOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool woken_ = false;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace kgate::webhooks
