#pragma once
// Redelivery recovery: GitHub keeps every delivery of a webhook for days and
// can send any of them again. After a start (and every few minutes) the
// service lists the deliveries GitHub made since its last stored one and asks
// GitHub to redeliver each whose guid (X-GitHub-Delivery) it has not stored.
// This is what lets the queue commit without an fsync per batch
// (--durability normal): a power loss that drops the last commits drops
// deliveries GitHub still has, and they come back here. It also brings back
// deliveries GitHub could not make while the service was down (GitHub does
// not retry those by itself).
//
// Invariants: a guid is asked for at most once per sweep, oldest first (so
// an opened event comes back before its synchronize); a guid whose last
// attempt kgate refused with a 4xx (bad signature, bad payload) is not asked
// for again; nothing is asked for outside the listed window.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bot/github_client.h"
#include "core/status.h"

namespace kgate::webhooks {

struct RecoveryOptions {
  // "/app/hook" (a GitHub App's webhook, JWT auth) or
  // "/repos/OWNER/NAME/hooks/HOOK_ID" (a repository webhook, token auth).
  std::string hook_path = "/app/hook";
  int per_page = 100;
  // Listed from this long before `since`: GitHub's clock and ours differ,
  // and a delivery's commit may land after a later one's.
  double margin_s = 300;
  int max_redeliveries = 500;  // per sweep: a bound on what one sweep can set off
};

struct RecoverySweep {
  int listed = 0;                     // delivery attempts GitHub listed in the window
  int missing = 0;                    // distinct guids not stored here
  int redelivered = 0;                // redeliveries GitHub accepted
  int refused_before = 0;             // missing guids kgate had refused with a 4xx: left alone
  std::vector<std::string> failures;  // redeliveries GitHub refused, with its message
  std::vector<std::string> guids;     // the guids asked for, oldest first
};

class DeliveryRecovery {
 public:
  DeliveryRecovery(std::shared_ptr<bot::GitHubClient> client, RecoveryOptions options);

  // Lists deliveries made at or after `since` - margin (seconds since the
  // epoch) and redelivers those `stored` does not know. Errors: the listing
  // failed (nothing was asked for then); single refused redeliveries are in
  // RecoverySweep::failures.
  Result<RecoverySweep> sweep(double since,
                              const std::function<bool(const std::string& guid)>& stored);

  const RecoveryOptions& options() const { return options_; }
  // Asked between GitHub calls: when it turns true the sweep ends early (a
  // service stopping does not wait for hundreds of redeliveries).
  void set_stopping(std::function<bool()> stopping) { stopping_ = std::move(stopping); }

 private:
  bool stopping() const { return stopping_ && stopping_(); }

  std::shared_ptr<bot::GitHubClient> client_;
  RecoveryOptions options_;
  std::function<bool()> stopping_;
};

}  // namespace kgate::webhooks
