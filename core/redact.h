#pragma once
// Secrets (tokens, JWTs, private keys) must never reach a log line, an error
// message or text written to a forge. Every secret kgate obtains is registered
// here as soon as it is read, and every string that leaves kgate's git and
// HTTP layers (gate/git_*, core/http_transport.h) passes through redact().
// Secrets nobody registered are scrubbed where their place shows them: the
// password of a URL ("https://user:PASSWORD@host") and the value of an
// Authorization header line.
//
// Invariant: once register_secret(s) returned, redact(x) contains no
// occurrence of s (for s of at least kMinSecretLength characters).
#include <string>
#include <string_view>

namespace kgate {

inline constexpr size_t kMinSecretLength = 8;  // shorter strings are too common to scrub

// Thread-safe; secrets stay registered for the life of the process.
void register_secret(std::string_view secret);
// `text` with every registered secret replaced by "***".
std::string redact(std::string_view text);

}  // namespace kgate
