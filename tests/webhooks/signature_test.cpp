#include "webhooks/signature.h"

#include <cstdlib>

#include <gtest/gtest.h>

#include "webhooks/webhook_secrets.h"

namespace kgate::webhooks {
namespace {

// GitHub's published test vector (docs: "Validating webhook deliveries").
TEST(Signature, GitHubTestVector) {
  const std::string secret = "It's a Secret to Everybody";
  const std::string body = "Hello, World!";
  const std::string expected =
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
  EXPECT_EQ(github_signature(secret, body), expected);
  EXPECT_TRUE(signature_matches(expected, body, {secret}));
}

TEST(Signature, RejectsWrongSecretBodyAndFormat) {
  const std::string secret = "It's a Secret to Everybody";
  const std::string good = github_signature(secret, "Hello, World!");
  EXPECT_FALSE(signature_matches(good, "Hello, World?", {secret}));
  EXPECT_FALSE(signature_matches(good, "Hello, World!", {"another secret"}));
  EXPECT_FALSE(signature_matches("", "Hello, World!", {secret}));
  EXPECT_FALSE(signature_matches("sha1=" + good.substr(7), "Hello, World!", {secret}));
  EXPECT_FALSE(signature_matches(good.substr(0, good.size() - 1), "Hello, World!", {secret}));
  std::string upper = good;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  EXPECT_FALSE(signature_matches(upper, "Hello, World!", {secret}));
  EXPECT_FALSE(signature_matches(good, "Hello, World!", {}));
  EXPECT_FALSE(signature_matches(good, "Hello, World!", {""}));
}

TEST(Signature, AnyRotatedSecretMatches) {
  std::vector<std::string> secrets = {"old secret", "new secret"};
  EXPECT_TRUE(signature_matches(github_signature("old secret", "{}"), "{}", secrets));
  EXPECT_TRUE(signature_matches(github_signature("new secret", "{}"), "{}", secrets));
  EXPECT_FALSE(signature_matches(github_signature("retired", "{}"), "{}", secrets));
}

TEST(WebhookSecrets, FromEnvironmentCommaSeparated) {
  setenv("KGATE_WEBHOOK_SECRET", " first , second,,", 1);
  auto secrets = load_webhook_secrets();
  unsetenv("KGATE_WEBHOOK_SECRET");
  ASSERT_TRUE(secrets.ok()) << secrets.error().message;
  EXPECT_EQ(*secrets, (std::vector<std::string>{"first", "second"}));
}

TEST(WebhookSecrets, MissingIsAnActionableError) {
  unsetenv("KGATE_WEBHOOK_SECRET");
  unsetenv("KGATE_WEBHOOK_SECRET_FILE");
  auto secrets = load_webhook_secrets();
  ASSERT_FALSE(secrets.ok());
  EXPECT_NE(secrets.error().message.find("KGATE_WEBHOOK_SECRET"), std::string::npos);
}

}  // namespace
}  // namespace kgate::webhooks
