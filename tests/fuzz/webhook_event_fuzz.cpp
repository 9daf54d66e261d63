// libFuzzer target: the event parser and the router on arbitrary bytes. The
// first byte picks the event name; the rest is the body. Neither may crash,
// hang, leak or read out of bounds, whatever GitHub (or an attacker holding a
// leaked secret) sends.
#include <cstddef>
#include <cstdint>
#include <string>

#include "webhooks/router.h"
#include "webhooks/webhook_event.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace kgate::webhooks;
  static const char* events[] = {"pull_request", "push", "issue_comment",
                                 "check_run",    "ping", "star"};
  if (size == 0) return 0;
  std::string name = events[data[0] % (sizeof events / sizeof events[0])];
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  auto event = parse_webhook_event(name, body);
  if (!event.ok()) return 0;
  RoutingContext context;
  context.kernels = {{"rmsnorm", {"csrc/rmsnorm.cu"}}, {"softmax", {"csrc/softmax.cu"}}};
  context.known_pull = [](const std::string& repo, int64_t number) -> std::optional<PullState> {
    if (number % 2) return std::nullopt;
    return PullState{repo, number, "abc", "def", number % 4 == 0};
  };
  context.is_approved = [](const std::string&, const std::string& sha) {
    return sha.size() % 2 == 0;
  };
  context.pull_with_head = [](const std::string& repo,
                              const std::string& sha) -> std::optional<PullState> {
    if (sha.size() % 3) return std::nullopt;
    return PullState{repo, static_cast<int64_t>(sha.size()), sha, "def", sha.size() % 2 == 0};
  };
  // Unknown permission answers (no GitHub) must refuse, never crash.
  static const AuthorAssociationPermissions association_only;
  context.permissions = &association_only;
  Routing routing = route(*event, context);
  // Trust fails closed: a fork's head is gated only when approved.
  if (event->pull_request && event->pull_request->from_fork() && event->name == "pull_request" &&
      event->action != "labeled" &&
      !context.is_approved(event->repository, event->pull_request->head_sha))
    if (!routing.jobs.empty()) __builtin_trap();
  for (const JobSpec& job : routing.jobs) {
    auto back = JobSpec::from_json(job.to_json());
    if (!back.ok() || !(*back == job)) __builtin_trap();  // the queue's round trip must hold
  }
  return 0;
}
