#pragma once
// Notices told on the pull request through the bot's forge (GitHub, or the
// local forge's files): "waiting for approval" is a check run on the head
// commit (conclusion action_required) so the pull request shows it where the
// gate's verdict will appear; every other notice is a pull-request comment,
// edited in place per kind (a hidden marker) rather than piled up.
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "bot/forge.h"
#include "webhooks/notifier.h"

namespace kgate::webhooks {

class ForgeNotifier : public Notifier {
 public:
  // A forge for a repository ("owner/name"); called once per repository.
  using ForgeFactory = std::function<Result<std::unique_ptr<bot::Forge>>(const std::string&)>;
  explicit ForgeNotifier(ForgeFactory factory) : factory_(std::move(factory)) {}

  // An error leaves the notice unsent; the service retries it later.
  Status notify(const Notice& notice) override;

  // The hidden marker of a notice kind's comment.
  static std::string marker(const std::string& kind);

 private:
  ForgeFactory factory_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<bot::Forge>> forges_;
};

}  // namespace kgate::webhooks
