#include "webhooks/delivery_recovery.h"

#include <algorithm>
#include <map>

#include "bot/github_app_credentials.h"
#include "bot/link_header.h"

namespace kgate::webhooks {
namespace {

struct Attempt {
  int64_t id = 0;
  double delivered_at = 0;
  int status_code = 0;  // 0: GitHub could not connect or timed out
};

}  // namespace

DeliveryRecovery::DeliveryRecovery(std::shared_ptr<bot::GitHubClient> client,
                                   RecoveryOptions options)
    : client_(std::move(client)), options_(std::move(options)) {}

Result<RecoverySweep> DeliveryRecovery::sweep(
    double since, const std::function<bool(const std::string& guid)>& stored) {
  RecoverySweep out;
  double from = since - options_.margin_s;
  // guid -> its attempts in the window (the original and any redeliveries).
  std::map<std::string, std::vector<Attempt>> by_guid;
  std::string next = options_.hook_path + "/deliveries?per_page=" +
                     std::to_string(std::clamp(options_.per_page, 1, 100));
  // GitHub lists newest first and pages with a cursor in the Link header:
  // the first page older than the window ends the listing.
  for (int page = 0; !next.empty(); ++page) {
    if (page >= 1000) return Error::infrastructure("listing webhook deliveries: too many pages");
    if (stopping()) return Error::infrastructure("listing webhook deliveries: stopped by shutdown");
    Result<bot::ApiResponse> r = client_->send("GET", next);
    if (!r.ok()) return r.error().with_context("listing webhook deliveries");
    if (r->status < 200 || r->status >= 300)
      return Error::infrastructure(bot::describe_github_error("GET", next, *r) +
                                   " (listing webhook deliveries needs the App's JWT for "
                                   "/app/hook, or a token with admin:repo_hook for a "
                                   "repository webhook)");
    if (!r->json.is_array())
      return Error::infrastructure("GET " + next + ": GitHub answered without a list");
    bool older_seen = false;
    for (const auto& item : r->json) {
      if (!item.is_object() || !item.contains("guid") || !item["guid"].is_string() ||
          !item.contains("id") || !item["id"].is_number_integer())
        continue;
      ++out.listed;
      Attempt a;
      a.id = item["id"].get<int64_t>();
      a.delivered_at =
          item.contains("delivered_at") && item["delivered_at"].is_string()
              ? static_cast<double>(bot::parse_github_time(item["delivered_at"].get<std::string>()))
              : 0;
      a.status_code = item.contains("status_code") && item["status_code"].is_number_integer()
                          ? item["status_code"].get<int>()
                          : 0;
      if (a.delivered_at < from) {
        older_seen = true;
        continue;
      }
      by_guid[item["guid"].get<std::string>()].push_back(a);
    }
    if (older_seen) break;
    auto link = bot::next_page_url(r->raw.header("link"));
    next = link ? *link : "";
  }

  struct Missing {
    std::string guid;
    Attempt first;
  };
  std::vector<Missing> missing;
  for (auto& [guid, attempts] : by_guid) {
    if (stored(guid)) continue;
    std::sort(attempts.begin(), attempts.end(),
              [](const Attempt& a, const Attempt& b) { return a.id < b.id; });
    bool answered_2xx = std::any_of(attempts.begin(), attempts.end(), [](const Attempt& a) {
      return a.status_code >= 200 && a.status_code < 300;
    });
    int last = attempts.back().status_code;
    ++out.missing;
    // 2xx but not stored: an answered delivery whose commit was lost. A 4xx
    // last answer: kgate looked at it and refused it; asking again would be
    // refused again (a secret fixed later is redelivered by hand).
    if (!answered_2xx && last >= 400 && last < 500) {
      ++out.refused_before;
      continue;
    }
    missing.push_back({guid, attempts.front()});
  }
  std::sort(missing.begin(), missing.end(), [](const Missing& a, const Missing& b) {
    return a.first.delivered_at != b.first.delivered_at
               ? a.first.delivered_at < b.first.delivered_at
               : a.first.id < b.first.id;
  });
  for (const Missing& m : missing) {
    if (out.redelivered + static_cast<int>(out.failures.size()) >= options_.max_redeliveries) break;
    if (stopping()) {
      out.failures.push_back(m.guid + ": not asked for, the service is stopping");
      continue;
    }
    std::string path =
        options_.hook_path + "/deliveries/" + std::to_string(m.first.id) + "/attempts";
    Result<bot::ApiResponse> r = client_->send("POST", path);
    if (!r.ok()) {
      out.failures.push_back(m.guid + ": " + r.error().message);
      continue;
    }
    if (r->status < 200 || r->status >= 300) {
      out.failures.push_back(m.guid + ": " + bot::describe_github_error("POST", path, *r));
      continue;
    }
    ++out.redelivered;
    out.guids.push_back(m.guid);
  }
  return out;
}

}  // namespace kgate::webhooks
