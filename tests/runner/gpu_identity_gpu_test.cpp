// On a GPU: which GPU measured a result. The inventory reads each GPU's UUID
// (cuDeviceGetUuid, in the probe child), a measurement records it with the
// index, the PCI slot and the peak clocks, and a process confined as a
// sweep's worker is (CUDA_VISIBLE_DEVICES=<UUID>, KGATE_GPU_INDEX=<its index
// in the sweep>) sees that GPU alone and records the sweep's index.
// Skips without a GPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <regex>

#include <nlohmann/json.hpp>

#include "agent/sweep_devices.h"
#include "runner/cuda/gpu_inventory.h"
#include "support/test_support.h"

namespace kgate {
namespace {

// The first "device" object anywhere in `j`.
nlohmann::json first_device(const nlohmann::json& j) {
  if (j.is_object()) {
    if (auto d = j.find("device"); d != j.end() && d->is_object()) return *d;
    for (const auto& [k, v] : j.items())
      if (auto d = first_device(v); !d.is_null()) return d;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (auto d = first_device(v); !d.is_null()) return d;
  }
  return nullptr;
}

TEST(GpuIdentityGpu, AMeasurementRecordsTheGpuAndAConfinedWorkerTheSweepsIndex) {
  auto inventory = cuda::gpu_inventory();
  if (!inventory.ok()) GTEST_SKIP() << inventory.error().message;
  const cuda::GpuDescription& gpu = inventory->gpus.back();
  EXPECT_TRUE(
      std::regex_match(gpu.uuid, std::regex("GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}")))
      << gpu.uuid;
  EXPECT_GT(gpu.peak_sm_clock_mhz, 0);
  std::printf("GPU %d: %s %s %s, SM %.0f MHz, memory %.0f MHz, CPUs near it: %zu\n", gpu.index,
              gpu.name.c_str(), gpu.uuid.c_str(), gpu.pci_bus_id.c_str(), gpu.peak_sm_clock_mhz,
              gpu.peak_memory_clock_mhz, gpu.local_cpus.size());

  // The sweep's device for it: confined by UUID, its index recorded.
  auto devices = sweep_devices("cuda", std::to_string(gpu.index));
  ASSERT_TRUE(devices.ok()) << devices.error().message;
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].env.at("CUDA_VISIBLE_DEVICES"), gpu.uuid);

  testing::TempDir scratch;
  const auto report = scratch / "run.json";
  CommandOptions options;
  options.env = {{"CUDA_VISIBLE_DEVICES", gpu.uuid},
                 {"KGATE_GPU_INDEX", "5"},
                 {"KGATE_CACHE_DIR", (scratch / "cache").string()},
                 {"KGATE_LOCK_DIR", (scratch / "locks").string()}};
  options.timeout_s = 240;
  auto run = run_command(
      {testing::kgate_binary(), "run", testing::example_dir().string(), "--kernel", "rmsnorm",
       "--shape", "decode-b1", "--backend", "cuda", "--json", report.string()},
      options);
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->exit_code, 0) << run->out << run->err;
  const nlohmann::json device = first_device(nlohmann::json::parse(testing::read(report)));
  ASSERT_TRUE(device.is_object()) << testing::read(report);
  EXPECT_EQ(device["uuid"], gpu.uuid);
  EXPECT_EQ(device["pci_bus_id"], gpu.pci_bus_id);
  EXPECT_EQ(device["index"], 5) << "the index the sweep named, not the confined ordinal 0";
  EXPECT_EQ(device["name"], gpu.name);
  EXPECT_DOUBLE_EQ(device["peak_sm_clock_mhz"].get<double>(), gpu.peak_sm_clock_mhz);
  EXPECT_DOUBLE_EQ(device["peak_memory_clock_mhz"].get<double>(), gpu.peak_memory_clock_mhz);
}

}  // namespace
}  // namespace kgate
