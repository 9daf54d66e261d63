#include "webhooks/notice_sender.h"

#include <map>

#include "webhooks/json_log.h"

namespace kgate::webhooks {

NoticeSender::~NoticeSender() {
  request_stop(std::chrono::steady_clock::now());
  join();
}

void NoticeSender::start() {
  thread_ = std::thread([this] { run(); });
}

void NoticeSender::wake() {
  {
    std::lock_guard lock(mutex_);
    woken_ = true;
  }
  wake_.notify_all();
}

void NoticeSender::request_stop(Deadline deadline) {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    woken_ = true;
    deadline_ = std::min(deadline_, deadline);
  }
  wake_.notify_all();
}

void NoticeSender::join() {
  if (thread_.joinable()) thread_.join();
}

bool NoticeSender::past_deadline() {
  std::lock_guard lock(mutex_);
  return stopping_ && std::chrono::steady_clock::now() >= deadline_;
}

void NoticeSender::run() {
  constexpr int kMaxNoticeFailures = 5;
  std::map<int64_t, int> failures;
  while (true) {
    auto notices = queue_.unsent_notices(100);
    bool all_sent = notices.ok();
    if (notices.ok()) {
      for (const auto& [id, notice] : *notices) {
        if (past_deadline()) {
          all_sent = false;
          break;
        }
        Status sent = notifier_.notify(notice);
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
          if (!give_up) {
            all_sent = false;
            break;
          }
        } else {
          json_log({{"msg", "notice"},
                    {"kind", notice.kind},
                    {"repository", notice.repository},
                    {"pull_number", notice.pull_number},
                    {"head_sha", notice.head_sha}});
        }
        failures.erase(id);
        (void)queue_.mark_notice_sent(id);
      }
      all_sent = all_sent && notices->size() < 100;
    }
    std::unique_lock lock(mutex_);
    if (stopping_ && (all_sent || std::chrono::steady_clock::now() >= deadline_)) {
      if (!all_sent)
        json_log({{"msg", "notices left unsent at shutdown; sent after the next start"}});
      return;
    }
    if (!woken_) {
      auto until = std::min(deadline_, std::chrono::steady_clock::now() + std::chrono::seconds(1));
      wake_.wait_until(lock, until, [this] { return woken_; });
    }
    woken_ = false;
  }
}

}  // namespace kgate::webhooks
