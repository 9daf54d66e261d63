#pragma once
// The JSON Web Token a GitHub App signs to prove who it is: RS256 over
// {iat, exp, iss} with the app's RSA private key (PEM), via OpenSSL.
#include <ctime>
#include <string>

#include "core/status.h"

namespace kgate::bot {

std::string base64url(const std::string& bytes);

// iat is backdated 60 s against clock skew; exp is iat + 10 min, GitHub's maximum.
// Fails (bad_input) when the key does not parse or is not RSA.
Result<std::string> make_app_jwt(const std::string& app_id, const std::string& private_key_pem,
                                 std::time_t now);

}  // namespace kgate::bot
