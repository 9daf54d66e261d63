#pragma once
// Telling people on the pull request what kgate is doing: "waiting for
// approval", "approved", refused commands, failed jobs. The glue with the
// bot's forge turns a Notice into a check run or a comment; the
// implementation here appends it to a JSON Lines file in the state folder.
#include <filesystem>
#include <mutex>

#include "core/status.h"
#include "webhooks/router.h"

namespace kgate::webhooks {

class Notifier {
 public:
  virtual ~Notifier() = default;
  virtual Status notify(const Notice& notice) = 0;
};

// Appends one JSON object per notice to `file` (state-dir/notices.jsonl).
class FileNotifier : public Notifier {
 public:
  explicit FileNotifier(std::filesystem::path file) : file_(std::move(file)) {}
  Status notify(const Notice& notice) override;

 private:
  std::filesystem::path file_;
  std::mutex mutex_;
};

}  // namespace kgate::webhooks
