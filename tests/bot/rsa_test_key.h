#pragma once
// A fresh RSA key for GitHub App tests: its PEM for kgate, and a check of
// an RS256 JWT's signature as GitHub makes it.
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <string>

namespace kgate::testing {

inline std::string base64url_decode(const std::string& in) {
  std::string s = in;
  for (auto& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  while (s.size() % 4) s += '=';
  std::string out(s.size(), '\0');
  int n =
      EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(s.data()), static_cast<int>(s.size()));
  out.resize(n - (in.size() % 4 == 2 ? 2 : in.size() % 4 == 3 ? 1 : 0));
  return out;
}

struct RsaKey {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  ~RsaKey() { EVP_PKEY_free(key); }
  std::string pem() const {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string out(data, n);
    BIO_free(bio);
    return out;
  }
  bool verify(const std::string& jwt) const {
    size_t dot2 = jwt.rfind('.');
    if (dot2 == std::string::npos) return false;
    std::string input = jwt.substr(0, dot2);
    std::string sig = base64url_decode(jwt.substr(dot2 + 1));
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    bool ok =
        EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
        EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                         reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
    EVP_MD_CTX_free(ctx);
    return ok;
  }
};

}  // namespace kgate::testing
