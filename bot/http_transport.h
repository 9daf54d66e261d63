#pragma once
// One HTTP exchange over libcurl: no retries, no interpretation of the status.
// Retries and rate limits belong to GitHubClient; this file only moves bytes.
#include <map>
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate::bot {

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent when non-empty or the method is POST/PATCH/PUT
  double timeout_s = 60;
};

// Invariant: header names are lower-case; a repeated header keeps its last value.
struct HttpResponse {
  int status = 0;
  std::map<std::string, std::string> headers;
  std::string body;

  std::string header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

// Fails (infrastructure) only when no HTTP response arrived: DNS, connect,
// TLS, timeout. The error message is redacted.
Result<HttpResponse> http_send(const HttpRequest& request);

}  // namespace kgate::bot
