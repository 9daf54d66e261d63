#pragma once
// Where the webhook secrets come from: the environment or a file, never the
// command line (which other users of the host can read in /proc).
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate::webhooks {

// KGATE_WEBHOOK_SECRET (comma-separated, several during rotation) or
// KGATE_WEBHOOK_SECRET_FILE (one secret per line or comma-separated).
// Fails when neither is set or no secret is left after trimming.
Result<std::vector<std::string>> load_webhook_secrets();

// Splits on commas and newlines, trims spaces, drops empty entries.
std::vector<std::string> split_secrets(const std::string& text);

}  // namespace kgate::webhooks
