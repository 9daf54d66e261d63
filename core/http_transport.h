#pragma once
// kgate's one HTTP client (libcurl): one exchange, no retries and no
// interpretation of the status. Retries are core/retry_policy.h's; the
// GitHub REST client (bot/github_client.h) and the model providers
// (agent/chat_provider.h) both send through here.
//
// Invariant: no secret reaches an error message: every error is passed
// through redact() (core/redact.h) after the value of each credential
// header of the request (Authorization, x-api-key, api-key) has been
// registered as a secret.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"

namespace kgate {

struct HttpTimeouts {
  double connect_s = 15;
  double total_s = 60;  // the whole exchange, connecting included
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // sent when non-empty or the method is POST/PATCH/PUT
  HttpTimeouts timeouts;
  std::string user_agent = "kgate";
  // Whether sending the request twice does no more than sending it once.
  // Unset: by its method (GET, HEAD, PUT, DELETE, OPTIONS are; POST and PATCH
  // are not: a second POST can open a second pull request). A caller sets
  // it for a POST that changes nothing (a chat completion).
  std::optional<bool> idempotent;
};

bool is_idempotent(const HttpRequest& request);

// `text` percent-encoded for a URL's path segment or query value (RFC 3986:
// every byte but letters, digits and -._~ is escaped).
std::string url_escape(std::string_view text);

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

// Where an exchange without a response failed: what decides whether sending
// it again may repeat what the server did.
enum class HttpFailure {
  kNone,          // a response arrived
  kNotSent,       // no byte of the request left (DNS, connection refused, TLS handshake)
  kTimedOut,      // sent, and no complete answer within the timeout
  kAfterSending,  // sent, then the connection failed
};

// Fails (infrastructure) only when no HTTP response arrived; `failure`
// (when given) says where. The error message is redacted.
Result<HttpResponse> http_send(const HttpRequest& request, HttpFailure* failure = nullptr);

}  // namespace kgate
