#pragma once
// One JSON object per line on stderr, for deliveries and jobs. Lines from
// several threads never interleave.
#include <nlohmann/json.hpp>

namespace kgate::webhooks {

// Adds "ts" (UTC, ISO 8601 with milliseconds) and writes the line.
void json_log(nlohmann::json line);

// Silences json_log (tests and benchmarks that run the service in-process).
void set_json_log_enabled(bool enabled);

}  // namespace kgate::webhooks
