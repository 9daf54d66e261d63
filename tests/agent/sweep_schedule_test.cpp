// The sweep's workers (agent/sweep_schedule.h) are real forked processes:
// one job per device at a time, devices at once, results handed back in the
// jobs' order whatever order they finish in, each worker confined to its
// device's environment and CPUs; a worker that dies is a failed job and the
// others go on. On the host backend every device index is the CPU.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include <nlohmann/json.hpp>

#include "agent/sweep_schedule.h"

namespace kgate {
namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::vector<int> my_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  return out;
}

// Two devices of the host backend, as `--gpus 0,1` gives them.
std::vector<SweepDevice> two_host_devices() {
  auto devices = host_sweep_devices({0, 1}, allowed_cpus());
  EXPECT_TRUE(devices.ok());
  return devices.ok() ? *devices : std::vector<SweepDevice>{};
}

TEST(SweepSchedule, OneJobPerDeviceAtATimeDevicesAtOnceResultsInJobOrder) {
  SweepSchedule schedule(two_host_devices());
  ASSERT_EQ(schedule.devices().size(), 2u);
  // Job 0 is long: the other device runs jobs 1..4 meanwhile, which end first.
  const std::vector<double> sleeps = {1.2, 0.1, 0.1, 0.1, 0.1};
  std::vector<size_t> order;
  std::vector<nlohmann::json> records(sleeps.size());
  std::vector<std::string> labels(sleeps.size());
  std::vector<double> delivered_at(sleeps.size());
  schedule.run(
      sleeps.size(),
      [&](size_t job, const SweepDevice& device, const std::vector<size_t>&) {
        labels[job] = device.label;
        JobStart s;
        s.body = [job, &sleeps] {
          const double start = now_s();
          std::this_thread::sleep_for(std::chrono::duration<double>(sleeps[job]));
          return nlohmann::json{{"start", start}, {"end", now_s()}, {"pid", getpid()}}.dump();
        };
        return s;
      },
      [&](size_t job, const JobOutcome& outcome) {
        order.push_back(job);
        delivered_at[job] = now_s();
        ASSERT_TRUE(outcome.completed) << outcome.failure;
        ASSERT_NE(outcome.device, nullptr);
        EXPECT_EQ(outcome.device->label, labels[job]);
        records[job] = nlohmann::json::parse(outcome.payload);
      });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  for (const auto& r : records) EXPECT_NE(r["pid"].get<int>(), getpid()) << "ran in a worker";
  // Jobs 1..4 finished before job 0 and yet were handed back after it.
  for (size_t j = 1; j < records.size(); ++j) {
    EXPECT_LT(records[j]["end"].get<double>(), records[0]["end"].get<double>()) << j;
    EXPECT_GE(delivered_at[j], records[0]["end"].get<double>()) << j;
  }
  // Never two jobs on one device at once; the devices ran at the same time.
  for (size_t a = 0; a < records.size(); ++a)
    for (size_t b = a + 1; b < records.size(); ++b) {
      const bool overlap = records[a]["start"].get<double>() < records[b]["end"].get<double>() &&
                           records[b]["start"].get<double>() < records[a]["end"].get<double>();
      if (labels[a] == labels[b]) {
        EXPECT_FALSE(overlap) << a << " and " << b << " on " << labels[a];
      }
    }
  EXPECT_NE(labels[0], labels[1]);
  EXPECT_LT(records[1]["start"].get<double>(), records[0]["end"].get<double>());
}

TEST(SweepSchedule, EachWorkerIsConfinedToItsDeviceEnvironmentAndCpus) {
  std::vector<SweepDevice> devices = two_host_devices();
  ASSERT_EQ(devices.size(), 2u);
  const std::vector<int> cpus = my_cpus();
  ASSERT_FALSE(cpus.empty());
  devices[0].env = {{"KGATE_TEST_DEVICE", "zero"}};
  devices[1].env = {{"KGATE_TEST_DEVICE", "one"}};
  devices[0].cpus = {cpus.front()};
  devices[1].cpus = {cpus.back()};
  SweepSchedule schedule(devices);
  std::map<std::string, nlohmann::json> seen;  // label -> what its worker saw
  schedule.run(
      2,
      [&](size_t, const SweepDevice&, const std::vector<size_t>&) {
        JobStart s;
        s.body = [] {
          const char* d = std::getenv("KGATE_TEST_DEVICE");
          std::this_thread::sleep_for(std::chrono::milliseconds(200));  // both at once
          return nlohmann::json{{"device", d ? d : ""}, {"cpus", my_cpus()}}.dump();
        };
        return s;
      },
      [&](size_t, const JobOutcome& outcome) {
        ASSERT_TRUE(outcome.completed) << outcome.failure;
        seen[outcome.device->label] = nlohmann::json::parse(outcome.payload);
      });
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen["host 0"]["device"], "zero");
  EXPECT_EQ(seen["host 1"]["device"], "one");
  EXPECT_EQ(seen["host 0"]["cpus"], nlohmann::json({cpus.front()}));
  EXPECT_EQ(seen["host 1"]["cpus"], nlohmann::json({cpus.back()}));
  EXPECT_EQ(std::getenv("KGATE_TEST_DEVICE"), nullptr)
      << "the sweep's own environment is untouched";
  EXPECT_EQ(my_cpus(), cpus);
}

TEST(SweepSchedule, AWorkerThatDiesIsAFailedJobWithItsLastLinesAndTheOthersGoOn) {
  SweepSchedule schedule(two_host_devices());
  std::vector<JobOutcome> outcomes(3);
  schedule.run(
      3,
      [&](size_t job, const SweepDevice&, const std::vector<size_t>&) {
        JobStart s;
        s.body = [job] {
          if (job == 1) {
            std::fprintf(stderr, "kgate: about to fail on purpose\n");
            std::abort();
          }
          return std::string("fine");
        };
        return s;
      },
      [&](size_t job, const JobOutcome& outcome) { outcomes[job] = outcome; });
  EXPECT_TRUE(outcomes[0].completed);
  EXPECT_EQ(outcomes[0].payload, "fine");
  EXPECT_FALSE(outcomes[1].completed);
  EXPECT_NE(outcomes[1].failure.find("signal 6"), std::string::npos) << outcomes[1].failure;
  EXPECT_NE(outcomes[1].err_tail.find("about to fail on purpose"), std::string::npos)
      << outcomes[1].err_tail;
  EXPECT_TRUE(outcomes[2].completed);
  EXPECT_EQ(outcomes[2].payload, "fine");
}

TEST(SweepSchedule, AJobStartMayFinishWithoutAWorkerAndSeesWhichJobsRun) {
  SweepSchedule schedule(two_host_devices());
  std::vector<std::vector<size_t>> running_at(4);
  std::vector<std::string> payloads(4);
  schedule.run(
      4,
      [&](size_t job, const SweepDevice&, const std::vector<size_t>& running) {
        running_at[job] = running;
        JobStart s;
        if (job == 2) {
          s.payload = "skipped";  // a kernel the total budget no longer reaches
          return s;
        }
        s.body = [] {
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          return std::to_string(getpid());
        };
        return s;
      },
      [&](size_t job, const JobOutcome& outcome) {
        EXPECT_TRUE(outcome.completed);
        payloads[job] = outcome.payload;
        EXPECT_EQ(outcome.device == nullptr, job == 2);
      });
  EXPECT_EQ(payloads[2], "skipped");
  EXPECT_NE(payloads[0], std::to_string(getpid()));
  EXPECT_TRUE(running_at[0].empty());
  EXPECT_EQ(running_at[1], (std::vector<size_t>{0}));  // the second device starts beside job 0
  // Job 2 comes up when a device frees: at most the other job still runs.
  EXPECT_LE(running_at[2].size(), 1u);
}

TEST(SweepSchedule, TimeLeftCountsEveryDeviceAndWhatRunningJobsMayStillUse) {
  EXPECT_DOUBLE_EQ(sweep_time_left(100, 30, 1, {}), 70);
  EXPECT_DOUBLE_EQ(sweep_time_left(100, 30, 4, {}), 280);
  EXPECT_DOUBLE_EQ(sweep_time_left(100, 30, 4, {20, 50, -5}),
                   210);  // an overrun costs nothing more
  EXPECT_DOUBLE_EQ(sweep_time_left(100, 120, 2, {}), 0);
}

TEST(SweepSchedule, ShardsTakeEveryKthKernelAndRefuseWhatIsNoShard) {
  auto shard = parse_shard("1/3");
  ASSERT_TRUE(shard.ok());
  std::vector<size_t> taken;
  for (size_t p = 0; p < 8; ++p)
    if (shard->takes(p)) taken.push_back(p);
  EXPECT_EQ(taken, (std::vector<size_t>{1, 4, 7}));
  EXPECT_EQ(shard->text(), "1/3");
  auto whole = parse_shard("");
  ASSERT_TRUE(whole.ok());
  EXPECT_TRUE(whole->takes(0) && whole->takes(5));
  for (const char* bad : {"3/3", "1", "a/2", "0/0", "-1/2", "1/2/3"}) {
    auto refused = parse_shard(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_NE(refused.error().message.find("J/K"), std::string::npos) << refused.error().message;
  }
}

}  // namespace
}  // namespace kgate
