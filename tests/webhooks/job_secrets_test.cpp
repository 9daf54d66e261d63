// No secret of the service reaches a job, which runs pull-request code: the
// built `kgate serve` runs a job that prints its environment, reads the
// secret files and the service's /proc entries, and writes what it found
// (also base64-encoded, which no redaction would catch) into its outputs.
// Then the queue database, the log and every file of the job are searched
// for the secret values.
#include <gtest/gtest.h>

#include <set>

#include "core/file_shield.h"
#include "serve_fixture.h"
#include "webhooks/job_environment.h"

namespace kgate::testing {
namespace {

using nlohmann::json;

const std::string kToken = "ghp_jobSecretsTestToken0123456789abcdefXYZ";
const std::string kWebhookSecret = "webhook-secret-for-the-job-test-5f2c9a";
const std::string kKeyLine = "MIIEowIBAAKCAQEAyJobSecretsTestKeyLine0123456789abcdefABCDEF";

std::string base64(const std::string& text) {
  static const char* table = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  int value = 0, bits = -6;
  for (unsigned char c : text) {
    value = (value << 8) + c;
    bits += 8;
    while (bits >= 0) {
      out += table[(value >> bits) & 0x3f];
      bits -= 6;
    }
  }
  if (bits > -6) out += table[((value << 8) >> (bits + 8)) & 0x3f];
  while (out.size() % 4) out += '=';
  return out;
}

// Every file under `root` (and the file itself), read whole.
std::string everything_under(const std::filesystem::path& root) {
  std::string all;
  std::error_code ec;
  if (std::filesystem::is_regular_file(root, ec)) return read(root);
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
    if (it->is_regular_file()) all += read(it->path()) + "\n";
  return all;
}

TEST(JobSecrets, AJobFindsNoSecretAndNothingKeptHoldsOne) {
  ASSERT_TRUE(have_octokit_examples()) << "run scripts/setup";
  if (FileShield::landlock_abi() < 2)
    GTEST_SKIP() << "this kernel has no Landlock ABI 2 (Linux 5.19): secret files cannot be "
                    "hidden from jobs here";
  TempDir dir;
  std::filesystem::copy(example_dir(), dir / "repo", std::filesystem::copy_options::recursive);
  std::filesystem::create_directories(dir / "secrets");
  write(dir / "secrets/webhook", kWebhookSecret + "\n");
  write(dir / "secrets/app.pem",
        "-----BEGIN RSA PRIVATE KEY-----\n" + kKeyLine + "\n-----END RSA PRIVATE KEY-----\n");
  std::filesystem::path key_copy = dir / "ssh_key";  // another secret, hidden with --job-hide
  write(key_copy, "not-a-real-ssh-key-" + kKeyLine + "\n");

  // The job: everything it can find goes to stdout, stderr and its own files.
  std::string script = R"sh(#!/bin/sh
out="$KGATE_JOB_DIR/found.txt"
env > "$KGATE_JOB_DIR/env.txt"
env
for f in ')sh" + (dir / "secrets/webhook").string() +
                       "' '" + (dir / "secrets/app.pem").string() + "' '" + key_copy.string() +
                       R"sh(' "/proc/$PPID/environ" "/proc/$PPID/cmdline"; do
  cat "$f" >> "$out" 2>>"$KGATE_JOB_DIR/errors.txt"
  base64 "$f" >> "$out" 2>/dev/null
done
base64 "$KGATE_JOB_DIR/env.txt" >> "$out"
ls -la /proc/$PPID/fd >> "$out" 2>&1
# The queue decides what runs: a job may neither read nor change it.
state="$(dirname "$(dirname "$KGATE_JOB_DIR")")"
cat "$state/queue.db" > /dev/null 2>>"$KGATE_JOB_DIR/errors.txt" || echo "queue unreadable" >> "$out"
printf 'garbage' >> "$state/queue.db" 2>>"$KGATE_JOB_DIR/errors.txt" || echo "queue unwritable" >> "$out"
rm -f "$state/queue.db" 2>>"$KGATE_JOB_DIR/errors.txt" || echo "queue kept" >> "$out"
# A job that came by the token some other way prints it: redacted where kept.
echo "leaked )sh" + kToken +
                       R"sh(" >&2
exit 3
)sh";
  write(dir / "job.sh", script);
  std::filesystem::permissions(dir / "job.sh", std::filesystem::perms::owner_all);

  ServeProcess server(
      {"--listen", "127.0.0.1:0", "--repo", (dir / "repo").string(), "--state-dir",
       (dir / "state").string(), "--job-command", (dir / "job.sh").string(), "--no-recovery",
       "--max-attempts", "1", "--job-hide", key_copy.string()},
      {{"KGATE_WEBHOOK_SECRET_FILE", (dir / "secrets/webhook").string()},
       {"GITHUB_TOKEN", kToken},
       {"KGATE_APP_PRIVATE_KEY_FILE", (dir / "secrets/app.pem").string()},
       {"KGATE_APP_PRIVATE_KEY", "-----BEGIN RSA PRIVATE KEY-----\n" + kKeyLine + "\n"},
       {"OPENAI_API_KEY", "sk-jobSecretsTestOpenAIKey0123456789"}},
      dir / "serve.log");
  ASSERT_TRUE(server.start()) << server.log();
  httplib::Client client("127.0.0.1", server.port());
  auto r = post_delivery(client, "pull_request", example_payload("pull_request", "opened").dump(),
                         "secrets-1", kWebhookSecret);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 202) << r->body;
  std::filesystem::path db = dir / "state/queue.db";
  ASSERT_TRUE(eventually([&] {
    return query_int(db, "SELECT count(*) FROM jobs WHERE state='failed'") == 1;
  })) << server.log();
  EXPECT_EQ(server.terminate(), 0);

  std::filesystem::path job_dir = dir / "state/jobs/1";
  std::string env = read(job_dir / "env.txt");
  ASSERT_FALSE(env.empty()) << "the job did not run";
  for (const char* name :
       {"KGATE_WEBHOOK_SECRET", "GITHUB_TOKEN", "KGATE_APP_PRIVATE_KEY", "OPENAI_API_KEY"})
    EXPECT_EQ(env.find(std::string(name) + "="), std::string::npos) << name << " in\n" << env;
  EXPECT_NE(env.find("KGATE_JOB_ID=1"), std::string::npos) << env;
  EXPECT_NE(env.find("PATH="), std::string::npos) << env;
  // The files were there to read, and reading them was refused.
  std::string errors = read(job_dir / "errors.txt");
  EXPECT_NE(errors.find("Permission denied"), std::string::npos) << errors;
  std::string found = read(job_dir / "found.txt");
  for (const char* refused : {"queue unreadable", "queue unwritable", "queue kept"})
    EXPECT_NE(found.find(refused), std::string::npos) << refused << " in\n" << found;
  EXPECT_TRUE(std::filesystem::exists(dir / "state/queue.db"));

  std::string kept = everything_under(dir / "state") + read(dir / "serve.log");
  std::set<std::string> secrets = {kToken, kWebhookSecret, kKeyLine,
                                   "sk-jobSecretsTestOpenAIKey0123456789"};
  for (const std::string& s : std::set<std::string>(secrets)) {
    secrets.insert(base64(s));
    secrets.insert(base64(s + "\n"));
  }
  for (const std::string& s : secrets) EXPECT_EQ(kept.find(s), std::string::npos) << "found " << s;
  // The job's own stderr line was kept, redacted, in the queue and the log.
  auto last_error = query_strings(db, "SELECT last_error FROM jobs");
  ASSERT_EQ(last_error.size(), 1u);
  EXPECT_NE(last_error[0].find("leaked ***"), std::string::npos) << last_error[0];
}

TEST(JobSecrets, OnlyTheAllowListPasses) {
  using webhooks::job_environment;
  auto env = job_environment({"OPENAI_API_KEY", "MY_AGENT_URL"}, [] {
    return std::vector<std::pair<std::string, std::string>>{
        {"PATH", "/usr/bin"},          {"HOME", "/home/k"},
        {"CUDA_VISIBLE_DEVICES", "0"}, {"LC_ALL", "C"},
        {"KGATE_CACHE_DIR", "/c"},     {"KGATE_WEBHOOK_SECRET", "s"},
        {"GITHUB_TOKEN", "t"},         {"KGATE_APP_PRIVATE_KEY", "k"},
        {"AWS_ACCESS_KEY_ID", "a"},    {"CUDA_SECRET_TOKEN", "x"},
        {"OPENAI_API_KEY", "o"},       {"MY_AGENT_URL", "u"},
        {"SSH_AUTH_SOCK", "/tmp/s"},   {"LD_PRELOAD", "/evil.so"}};
  });
  std::set<std::string> names;
  for (const auto& [name, value] : env) names.insert(name);
  // CUDA_SECRET_TOKEN matches a prefix, but says it is a credential; the
  // names given on the command line pass as given.
  EXPECT_EQ(names, (std::set<std::string>{"PATH", "HOME", "CUDA_VISIBLE_DEVICES", "LC_ALL",
                                          "KGATE_CACHE_DIR", "OPENAI_API_KEY", "MY_AGENT_URL"}));
  EXPECT_FALSE(webhooks::passes_to_jobs("OPENAI_API_KEY"));
}

}  // namespace
}  // namespace kgate::testing
