#include "webhooks/signature.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace kgate::webhooks {

std::string hmac_sha256_hex(std::string_view secret, std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest, &length);
  static const char* hex = "0123456789abcdef";
  std::string out(length * 2, '0');
  for (unsigned int i = 0; i < length; ++i) {
    out[2 * i] = hex[digest[i] >> 4];
    out[2 * i + 1] = hex[digest[i] & 15];
  }
  return out;
}

std::string github_signature(std::string_view secret, std::string_view body) {
  return "sha256=" + hmac_sha256_hex(secret, body);
}

bool signature_matches(std::string_view header, std::string_view body,
                       const std::vector<std::string>& secrets) {
  constexpr std::string_view prefix = "sha256=";
  if (header.size() != prefix.size() + 64 || header.substr(0, prefix.size()) != prefix)
    return false;
  std::string_view given = header.substr(prefix.size());
  int matched = 0;
  for (const std::string& secret : secrets) {
    if (secret.empty()) continue;
    std::string expected = hmac_sha256_hex(secret, body);
    matched |= CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
  }
  return matched != 0;
}

}  // namespace kgate::webhooks
