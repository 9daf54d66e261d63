#include "bot/jwt.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "core/redact.h"

namespace kgate::bot {

std::string base64url(const std::string& bytes) {
  static const char* const kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8) |
                 static_cast<unsigned char>(bytes[i + 2]);
    for (int shift = 18; shift >= 0; shift -= 6) out += kAlphabet[(v >> shift) & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest == 1) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
  } else if (rest == 2) {
    unsigned v = (static_cast<unsigned char>(bytes[i]) << 16) |
                 (static_cast<unsigned char>(bytes[i + 1]) << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
  }
  return out;  // no padding, as JWS requires
}

Result<std::string> make_app_jwt(const std::string& app_id, const std::string& private_key_pem,
                                 std::time_t now) {
  register_secret(private_key_pem);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), BIO_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr, EVP_PKEY_free);
  if (!key)
    return Error::bad_input(
        "the GitHub App private key is not a PEM private key (KGATE_APP_PRIVATE_KEY or "
        "KGATE_APP_PRIVATE_KEY_FILE): download it from the app's settings page");
  if (EVP_PKEY_base_id(key.get()) != EVP_PKEY_RSA)
    return Error::bad_input(
        "the GitHub App private key is not an RSA key; GitHub signs with RS256");

  const long long iat = static_cast<long long>(now) - 60;
  nlohmann::json header = {{"alg", "RS256"}, {"typ", "JWT"}};
  nlohmann::json payload = {{"iat", iat}, {"exp", iat + 600}, {"iss", app_id}};
  std::string signing_input = base64url(header.dump()) + "." + base64url(payload.dump());

  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  size_t sig_len = 0;
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &sig_len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    return Error::infrastructure("OpenSSL could not prepare the RS256 signature");
  std::string signature(sig_len, '\0');
  if (EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(signature.data()), &sig_len,
                     reinterpret_cast<const unsigned char*>(signing_input.data()),
                     signing_input.size()) != 1)
    return Error::infrastructure("OpenSSL could not sign the GitHub App JWT");
  signature.resize(sig_len);
  std::string jwt = signing_input + "." + base64url(signature);
  register_secret(jwt);
  return jwt;
}

}  // namespace kgate::bot
