#include "webhooks/forge_notifier.h"

#include "bot/check_run_publisher.h"
#include "webhooks/public_text.h"

namespace kgate::webhooks {

std::string ForgeNotifier::marker(const std::string& kind) {
  return "<!-- kgate:notice:" + kind + " -->";
}

Status ForgeNotifier::notify(const Notice& notice) {
  std::lock_guard lock(mutex_);
  auto it = forges_.find(notice.repository);
  if (it == forges_.end()) {
    auto forge = factory_(notice.repository);
    if (!forge.ok()) return forge.error().with_context("forge for " + notice.repository);
    it = forges_.emplace(notice.repository, std::move(forge.value())).first;
  }
  bot::Forge& forge = *it->second;
  if (notice.kind == "waiting-for-approval" && !notice.head_sha.empty()) {
    bot::CheckRunReport report;
    report.title = "kgate: waiting for a maintainer's approval";
    report.conclusion = "action_required";
    report.summary_markdown = without_local_paths(notice.message);
    if (Status s = bot::publish_check_run(forge, notice.head_sha, report); !s.ok())
      return s.error().with_context("check run on " + notice.head_sha);
    return {};
  }
  if (notice.pull_number <= 0) return {};  // nowhere to say it (a push): the log line is enough
  std::string body = marker(notice.kind) + "\n" + without_local_paths(notice.message);
  if (!notice.head_sha.empty()) body += "\n\n(commit " + notice.head_sha + ")";
  if (Status s =
          forge.upsert_comment(static_cast<int>(notice.pull_number), marker(notice.kind), body);
      !s.ok())
    return s.error().with_context("comment on #" + std::to_string(notice.pull_number));
  return {};
}

}  // namespace kgate::webhooks
