#pragma once
// Secrets (tokens, JWTs, private keys) must never reach a log line, an error
// message or text written to a forge. Every secret kgate obtains is registered
// here as soon as it is read, and every string that leaves the bot passes
// through redact().
//
// Invariant: once register_secret(s) returned, redact(x) contains no
// occurrence of s (for s of at least kMinSecretLength characters).
#include <string>
#include <string_view>

namespace kgate::bot {

inline constexpr size_t kMinSecretLength = 8;  // shorter strings are too common to scrub

// Thread-safe; secrets stay registered for the life of the process.
void register_secret(std::string_view secret);
// `text` with every registered secret replaced by "***".
std::string redact(std::string_view text);

}  // namespace kgate::bot
