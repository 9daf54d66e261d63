// A child run with a FileShield and a clean environment, through the real
// kernel (Landlock) and real programs (sh, cat, mv, ln): the hidden files
// cannot be read through any path, moved or linked elsewhere; everything
// else stays readable and writable; nothing of the parent's environment or
// descriptors comes along.
#include "core/file_shield.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "core/subprocess.h"
#include "support/test_support.h"

namespace kgate {
namespace {

using testing::read;
using testing::TempDir;
using testing::write;

class FileShieldTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (FileShield::landlock_abi() < 2) GTEST_SKIP() << "no Landlock ABI 2 on this kernel";
    std::filesystem::create_directories(dir / "secrets/deeper");
    write(dir / "secrets/key", "the-secret-value\n");
    write(dir / "secrets/deeper/other", "another-secret\n");
    write(dir / "secrets/neighbour", "readable\n");
    write(dir / "public", "public\n");
    std::filesystem::create_directories(dir / "scratch");
  }
  CommandOutcome run(const std::string& script, const FileShield& shield) {
    CommandOptions options;
    options.timeout_s = 30;
    options.clean_env = true;
    options.close_other_fds = true;
    options.env = {{"PATH", "/usr/bin:/bin"}};
    options.landlock_ruleset_fd = shield.ruleset_fd();
    auto outcome = run_command({"/bin/sh", "-c", script}, options);
    EXPECT_TRUE(outcome.ok());
    return outcome.ok() ? *outcome : CommandOutcome{};
  }
  TempDir dir;
};

TEST_F(FileShieldTest, HiddenFilesCannotBeReadMovedOrLinked) {
  auto shield = FileShield::make({dir / "secrets/key", dir / "secrets/deeper"});
  ASSERT_TRUE(shield.ok()) << shield.error().message;
  std::string d = dir.path().string();
  auto outcome =
      run("cat " + d + "/secrets/key; cat " + d + "/secrets/../secrets/key; cat " + d +
              "/secrets/deeper/other; ln -s " + d + "/secrets/key " + d + "/scratch/link && cat " +
              d + "/scratch/link; ln " + d + "/secrets/key " + d + "/scratch/hard; mv " + d +
              "/secrets/key " + d + "/scratch/moved; cat " + d + "/scratch/moved; cat " + d +
              "/secrets/neighbour " + d + "/public; echo w > " + d + "/scratch/new && cat " + d +
              "/scratch/new; mv " + d + "/scratch/new " + d + "/public.moved && cat " + d +
              "/public.moved",
          *shield);
  EXPECT_EQ(outcome.out.find("secret"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("readable"), std::string::npos) << outcome.err;
  EXPECT_NE(outcome.out.find("public"), std::string::npos) << outcome.err;
  // Files it writes elsewhere, moved between folders, stay its own.
  EXPECT_NE(outcome.out.find("w\n"), std::string::npos) << outcome.err;
  EXPECT_TRUE(std::filesystem::exists(dir / "secrets/key"));  // not moved away
  EXPECT_FALSE(std::filesystem::exists(dir / "scratch/hard"));
  // Nor written, truncated or removed.
  run("echo x >> " + d + "/secrets/key; : > " + d + "/secrets/key; rm -f " + d + "/secrets/key",
      *shield);
  EXPECT_EQ(read(dir / "secrets/key"), "the-secret-value\n");
  // The parent still reads it.
  EXPECT_EQ(read(dir / "secrets/key"), "the-secret-value\n");
}

TEST_F(FileShieldTest, TheChildGetsOnlyItsEnvironmentAndNoDescriptor) {
  setenv("KGATE_SHIELD_TEST_SECRET", "parent-only", 1);
  int opened = open((dir / "public").c_str(), O_RDONLY);
  int fd = fcntl(opened, F_DUPFD, 100);  // not close-on-exec, and far from ls's own
  close(opened);
  ASSERT_GE(fd, 100);
  FileShield none;
  auto outcome = run("env; ls /proc/self/fd", none);
  close(fd);
  unsetenv("KGATE_SHIELD_TEST_SECRET");
  EXPECT_EQ(outcome.out.find("KGATE_SHIELD_TEST_SECRET"), std::string::npos) << outcome.out;
  EXPECT_NE(outcome.out.find("PATH=/usr/bin:/bin"), std::string::npos);
  // 0, 1, 2 and the one ls opens to list them.
  EXPECT_EQ(outcome.out.find(std::to_string(fd) + "\n"), std::string::npos) << outcome.out;
}

TEST(FileShield, NothingToHideNeedsNoLandlock) {
  auto shield = FileShield::make({"/no/such/file"});
  ASSERT_TRUE(shield.ok());
  EXPECT_EQ(shield->ruleset_fd(), -1);
}

}  // namespace
}  // namespace kgate
