// Which devices a sweep runs on (agent/sweep_devices.h): --gpus parsed and
// checked against the GPUs the driver lists (an inventory as the probe child
// returns it, here for a host of four GPUs on two NUMA nodes), each worker
// confined to its GPU by UUID and to the CPUs nearest it, split between the
// GPUs that share them; GPUs of different models refused.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "agent/sweep_devices.h"

namespace kgate {
namespace {

std::vector<int> range(int first, int last) {
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

// Four H200s, GPUs 0 and 1 near CPUs 0-7, GPUs 2 and 3 near CPUs 8-15.
cuda::GpuInventory four_gpus() {
  cuda::GpuInventory inv;
  inv.driver_version = 13000;
  for (int i = 0; i < 4; ++i) {
    cuda::GpuDescription g;
    g.name = "NVIDIA H200";
    g.arch = "sm_90";
    g.index = i;
    g.pci_bus_id = "0000:1" + std::to_string(i) + ":00.0";
    g.uuid = "GPU-0000000" + std::to_string(i) + "-1111-2222-3333-444444444444";
    g.local_cpus = i < 2 ? range(0, 7) : range(8, 15);
    inv.gpus.push_back(g);
  }
  return inv;
}

TEST(SweepDevices, GpuListsAreAllOrIndicesAndRanges) {
  EXPECT_TRUE(parse_gpu_list("all")->empty());
  EXPECT_EQ(*parse_gpu_list("0,2"), (std::vector<int>{0, 2}));
  EXPECT_EQ(*parse_gpu_list("0-3"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(*parse_gpu_list("1,4-5"), (std::vector<int>{1, 4, 5}));
  for (const char* bad : {"1,1", "0-2,2", "x", "3-1", "-1", "0,", ","}) {
    auto r = parse_gpu_list(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_NE(r.error().message.find("--gpus"), std::string::npos);
    }
  }
}

TEST(SweepDevices, EachGpuGetsItsUuidItsIndexAndTheCpusNearestIt) {
  auto devices = cuda_sweep_devices(four_gpus(), {}, range(0, 15));
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const SweepDevice& d = (*devices)[i];
    EXPECT_EQ(d.index, i);
    EXPECT_EQ(d.label, "gpu " + std::to_string(i));
    EXPECT_EQ(d.env.at("CUDA_VISIBLE_DEVICES"), four_gpus().gpus[i].uuid);
    EXPECT_EQ(d.env.at("KGATE_GPU_INDEX"), std::to_string(i));
  }
  EXPECT_EQ((*devices)[0].cpus, range(0, 3));
  EXPECT_EQ((*devices)[1].cpus, range(4, 7));
  EXPECT_EQ((*devices)[2].cpus, range(8, 11));
  EXPECT_EQ((*devices)[3].cpus, range(12, 15));

  // Two GPUs on different nodes: each has its node's CPUs alone.
  auto two = cuda_sweep_devices(four_gpus(), {1, 3}, range(0, 15));
  ASSERT_TRUE(two.ok());
  EXPECT_EQ((*two)[0].cpus, range(0, 7));
  EXPECT_EQ((*two)[1].cpus, range(8, 15));

  // One GPU: not pinned, as a sweep always ran.
  auto one = cuda_sweep_devices(four_gpus(), {2}, range(0, 15));
  ASSERT_TRUE(one.ok());
  EXPECT_TRUE((*one)[0].cpus.empty());
}

TEST(SweepDevices, CpusThisProcessMayNotUseAreNotGivenAndTooFewAreShared) {
  // A cgroup that allows CPUs 0-3 only: the far node's GPUs fall back to them.
  auto devices = cuda_sweep_devices(four_gpus(), {}, range(0, 3));
  ASSERT_TRUE(devices.ok());
  std::vector<int> all;
  for (const SweepDevice& d : *devices) {
    EXPECT_EQ(d.cpus.size(), 1u);
    all.insert(all.end(), d.cpus.begin(), d.cpus.end());
  }
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, range(0, 3));
  // Fewer CPUs than workers: each has one, shared round robin.
  auto crowded = cuda_sweep_devices(four_gpus(), {}, {5, 9});
  ASSERT_TRUE(crowded.ok());
  for (const SweepDevice& d : *crowded) EXPECT_EQ(d.cpus.size(), 1u);
}

TEST(SweepDevices, GpusThatAreNotThereOrOfAnotherModelAreRefused) {
  auto missing = cuda_sweep_devices(four_gpus(), {0, 4}, range(0, 15));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("no GPU 4 (4 visible"), std::string::npos)
      << missing.error().message;
  cuda::GpuInventory mixed = four_gpus();
  mixed.gpus[2].name = "NVIDIA L40S";
  auto refused = cuda_sweep_devices(mixed, {}, range(0, 15));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ExitCode::kBadInput);
  EXPECT_NE(refused.error().message.find("different models"), std::string::npos);
  EXPECT_NE(refused.error().message.find("NVIDIA L40S"), std::string::npos);
  EXPECT_TRUE(cuda_sweep_devices(mixed, {0, 1}, range(0, 15)).ok()) << "one model selected";
}

TEST(SweepDevices, TheHostBackendsIndicesAreAllTheCpu) {
  auto one = host_sweep_devices({}, range(0, 3));
  ASSERT_TRUE(one.ok());
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ((*one)[0].uuid, "host");
  EXPECT_TRUE((*one)[0].env.empty());
  auto two = host_sweep_devices({0, 1}, range(0, 3));
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].cpus, range(0, 1));
  EXPECT_EQ((*two)[1].cpus, range(2, 3));
  EXPECT_EQ((*two)[1].label, "host 1");
  auto through = sweep_devices("host", "0,1");
  ASSERT_TRUE(through.ok());
  EXPECT_EQ(through->size(), 2u);
  EXPECT_FALSE(sweep_devices("host", "0,0").ok());
}

TEST(SweepDevices, CpuListsUuidsAndTheRecordedIndexReadAsTheDriverAndSysfsWriteThem) {
  EXPECT_EQ(cuda::parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(cuda::parse_cpu_list("zero").empty());
  EXPECT_TRUE(cuda::parse_cpu_list("3-1").empty());
  CUuuid uuid;
  for (int i = 0; i < 16; ++i) uuid.bytes[i] = static_cast<char>(0xa0 + i);
  EXPECT_EQ(cuda::format_uuid(uuid), "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf");
  // A sweep's worker sees its GPU alone, as ordinal 0, and records the sweep's index.
  setenv("KGATE_GPU_INDEX", "3", 1);
  EXPECT_EQ(cuda::recorded_gpu_index(0, 1), 3);
  EXPECT_EQ(cuda::recorded_gpu_index(1, 2), 1) << "not confined: the ordinal";
  setenv("KGATE_GPU_INDEX", "three", 1);
  EXPECT_EQ(cuda::recorded_gpu_index(0, 1), 0);
  unsetenv("KGATE_GPU_INDEX");
  EXPECT_EQ(cuda::recorded_gpu_index(0, 1), 0);
}

}  // namespace
}  // namespace kgate
