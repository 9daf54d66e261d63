#pragma once
// GitHub webhook signatures: X-Hub-Signature-256 is "sha256=" followed by the
// lowercase hex HMAC-SHA256 of the raw request body keyed with the secret.
// Comparison is constant-time so the answer time leaks nothing about the secret.
#include <string>
#include <string_view>
#include <vector>

namespace kgate::webhooks {

// Lowercase hex HMAC-SHA256 of `body` keyed with `secret`.
std::string hmac_sha256_hex(std::string_view secret, std::string_view body);

// The header value GitHub would send for `body` signed with `secret`.
std::string github_signature(std::string_view secret, std::string_view body);

// True when `header` ("sha256=<hex>") matches the body signed with any of
// `secrets` (several during rotation). Every secret is tried, so the time does
// not depend on which one matched.
bool signature_matches(std::string_view header, std::string_view body,
                       const std::vector<std::string>& secrets);

}  // namespace kgate::webhooks
