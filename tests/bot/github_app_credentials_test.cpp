// GitHub App authentication: an RS256 JWT from a real RSA key, exchanged
// against a local server that verifies the signature, cached, and renewed
// before the installation token's hour runs out.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include "bot/github_app_credentials.h"
#include "bot/github_forge.h"
#include "bot/jwt.h"
#include "core/redact.h"
#include "fake_github.h"
#include "rsa_test_key.h"

namespace kgate::bot {
namespace {

using testing::base64url_decode;
using testing::RsaKey;

TEST(JwtTest, IsRs256SignedWithTheAppKey) {
  RsaKey key;
  auto jwt = make_app_jwt("12345", key.pem(), 1'800'000'000);
  ASSERT_TRUE(jwt.ok()) << jwt.error().message;
  EXPECT_TRUE(key.verify(*jwt));
  size_t dot = jwt->find('.');
  auto header = nlohmann::json::parse(base64url_decode(jwt->substr(0, dot)));
  auto payload =
      nlohmann::json::parse(base64url_decode(jwt->substr(dot + 1, jwt->rfind('.') - dot - 1)));
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(payload["iss"], "12345");
  EXPECT_EQ(payload["iat"], 1'800'000'000 - 60);
  EXPECT_EQ(payload["exp"].get<long long>() - payload["iat"].get<long long>(), 600);
  // A tampered token fails verification: the check above can fail.
  std::string tampered = *jwt;
  tampered[dot + 3] = tampered[dot + 3] == 'A' ? 'B' : 'A';
  EXPECT_FALSE(key.verify(tampered));
}

TEST(JwtTest, RejectsAKeyThatIsNotPem) {
  auto jwt = make_app_jwt("1", "not a key at all, certainly not PEM", 0);
  ASSERT_FALSE(jwt.ok());
  EXPECT_EQ(jwt.error().kind, ExitCode::kBadInput);
  EXPECT_NE(jwt.error().message.find("KGATE_APP_PRIVATE_KEY"), std::string::npos);
}

TEST(Base64UrlTest, MatchesRfc4648Vectors) {
  EXPECT_EQ(base64url("f"), "Zg");
  EXPECT_EQ(base64url("fo"), "Zm8");
  EXPECT_EQ(base64url("foo"), "Zm9v");
  EXPECT_EQ(base64url("\xfb\xff"), "-_8");
}

TEST(GitHubAppCredentialsTest, ExchangesCachesAndRenews) {
  RsaKey key;
  testing::FakeGitHub github("octo", "kernels", "unused");
  std::time_t now = 1'800'000'000;
  // Tokens expire an hour after "now" at the start.
  std::tm tm{};
  std::time_t expiry = now + 3600;
  gmtime_r(&expiry, &tm);
  char expires[32];
  std::strftime(expires, sizeof expires, "%Y-%m-%dT%H:%M:%SZ", &tm);
  github.use_app_tokens([&](const std::string& jwt) { return key.verify(jwt); }, expires);

  GitHubAppConfig config{.app_id = "777",
                         .private_key_pem = key.pem(),
                         .installation_id = "42",
                         .api_url = github.url()};
  config.client.now = [&] { return now; };
  GitHubAppCredentials credentials(config);
  auto first = credentials.authorization();
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, "token ghs_installation1XXXXXXXXXXXXXXXX");
  now += 1800;  // half an hour later: cached
  EXPECT_EQ(*credentials.authorization(), *first);
  EXPECT_EQ(github.token_exchanges(), 1);
  now += 1600;  // 200 s left, under the 300 s margin: renewed
  // GitHub gives the next token a fresh hour.
  std::time_t next_expiry = now + 3600;
  gmtime_r(&next_expiry, &tm);
  std::strftime(expires, sizeof expires, "%Y-%m-%dT%H:%M:%SZ", &tm);
  github.use_app_tokens([&](const std::string& jwt) { return key.verify(jwt); }, expires);
  auto renewed = credentials.authorization();
  ASSERT_TRUE(renewed.ok());
  EXPECT_EQ(*renewed, "token ghs_installation2XXXXXXXXXXXXXXXX");
  EXPECT_EQ(github.token_exchanges(), 2);
  EXPECT_EQ(*credentials.git_password(), "ghs_installation2XXXXXXXXXXXXXXXX");
  // Installation tokens are secrets like any other.
  EXPECT_EQ(redact("x ghs_installation2XXXXXXXXXXXXXXXX y"), "x *** y");
  // The exchange carried a JWT, not a token.
  auto requests = github.requests();
  ASSERT_FALSE(requests.empty());
  EXPECT_EQ(requests[0].path, "/app/installations/42/access_tokens");
  EXPECT_EQ(requests[0].authorization.rfind("Bearer ", 0), 0u);
}

// An App named anything but "kgate": its commits and comments are its own
// bot user's, learned from GitHub (GET /app, then GET /users/<slug>[bot]).
TEST(GitHubAppCredentialsTest, TheForgeLearnsTheAppsBotUser) {
  RsaKey key;
  testing::FakeGitHub github("octo", "kernels", "unused");
  github.use_app_tokens([&](const std::string& jwt) { return key.verify(jwt); },
                        "2099-01-01T00:00:00Z");
  github.set_app_slug("acme-kgate");
  github.add_user("acme-kgate[bot]", 55501);
  GitHubAppConfig config{.app_id = "777",
                         .private_key_pem = key.pem(),
                         .installation_id = "42",
                         .api_url = github.url()};
  GitHubClientOptions options;
  options.api_url = github.url();
  auto client =
      std::make_shared<GitHubClient>(std::make_shared<GitHubAppCredentials>(config), options);
  GitHubForge forge(client, {.owner = "octo", .repo = "kernels"});
  auto id = forge.identity();
  ASSERT_TRUE(id.ok()) << id.error().message;
  EXPECT_EQ(id->name, "acme-kgate[bot]");
  EXPECT_EQ(id->email, "55501+acme-kgate[bot]@users.noreply.github.com");
  EXPECT_EQ(id->login, "acme-kgate[bot]");
  // Asked once.
  ASSERT_TRUE(forge.identity().ok());
  int app_reads = 0;
  for (const auto& r : github.requests()) app_reads += r.path == "/app";
  EXPECT_EQ(app_reads, 1);
}

TEST(GitHubAppCredentialsTest, AWrongKeyIsRefusedWithAClearMessage) {
  RsaKey key, other;
  testing::FakeGitHub github("octo", "kernels", "unused");
  github.use_app_tokens([&](const std::string& jwt) { return key.verify(jwt); },
                        "2030-01-01T00:00:00Z");
  GitHubAppConfig config{.app_id = "777",
                         .private_key_pem = other.pem(),
                         .installation_id = "42",
                         .api_url = github.url()};
  GitHubAppCredentials credentials(config);
  auto r = credentials.authorization();
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("GitHub App 777"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("401"), std::string::npos);
  EXPECT_EQ(r.error().message.find("BEGIN PRIVATE KEY"), std::string::npos);
}

}  // namespace
}  // namespace kgate::bot
