// The per-GPU lock: one holder at a time, across processes; released when
// the holder goes away, even by a crash.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "runner/gpu_lock.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(GpuLock, OneHolderAtATime) {
  testing::TempDir dir;
  auto first = GpuLock::try_acquire("0000:18:00.0", dir.path());
  ASSERT_TRUE(first.ok()) << first.error().message;
  auto second = GpuLock::try_acquire("0000:18:00.0", dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message.find("busy"), std::string::npos) << second.error().message;
  EXPECT_NE(second.error().message.find(std::to_string(getpid())), std::string::npos)
      << second.error().message;
  // Another GPU is another lock.
  EXPECT_TRUE(GpuLock::try_acquire("0000:19:00.0", dir.path()).ok());
  { GpuLock released = std::move(first.value()); }
  EXPECT_TRUE(GpuLock::try_acquire("0000:18:00.0", dir.path()).ok());
}

TEST(GpuLock, WaitsForAnotherProcessAndSurvivesItsDeath) {
  testing::TempDir dir;
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    auto held = GpuLock::try_acquire("gpu-x", dir.path());
    char c = held.ok() ? '1' : '0';
    (void)!write(ready[1], &c, 1);
    pause();  // killed below, holding the lock
    _exit(0);
  }
  char c = 0;
  ASSERT_EQ(read(ready[0], &c, 1), 1);
  ASSERT_EQ(c, '1');
  auto timed_out = GpuLock::acquire("gpu-x", 0.2, dir.path());
  ASSERT_FALSE(timed_out.ok());
  EXPECT_NE(timed_out.error().message.find("busy"), std::string::npos) << timed_out.error().message;
  auto start = std::chrono::steady_clock::now();
  std::thread killer([child] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    kill(child, SIGKILL);
  });
  auto held = GpuLock::acquire("gpu-x", 10, dir.path());
  killer.join();
  waitpid(child, nullptr, 0);
  ASSERT_TRUE(held.ok()) << held.error().message;
  EXPECT_GE(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 0.25);
  close(ready[0]);
  close(ready[1]);
}

}  // namespace
}  // namespace kgate
