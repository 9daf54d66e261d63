#include "webhooks/notifier.h"

#include <fstream>

#include <nlohmann/json.hpp>

#include "webhooks/job_queue.h"

namespace kgate::webhooks {

Status FileNotifier::notify(const Notice& notice) {
  nlohmann::json line = {{"kind", notice.kind},
                         {"repository", notice.repository},
                         {"pull_number", notice.pull_number},
                         {"head_sha", notice.head_sha},
                         {"message", notice.message},
                         {"at", unix_now()}};
  std::lock_guard lock(mutex_);
  std::ofstream out(file_, std::ios::app);
  out << line.dump() << "\n";
  out.flush();
  if (!out) return Error::infrastructure("cannot append to " + file_.string());
  return {};
}

}  // namespace kgate::webhooks
