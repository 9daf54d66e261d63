#include "runner/cuda/gpu_inventory.h"

#include "core/subprocess.h"
#include "runner/cuda/cuda_driver.h"
#include "runner/cuda/driver_calls.h"

namespace kgate::cuda {

nlohmann::json GpuInventory::to_json() const {
  nlohmann::json j = {{"driver_version", driver_version}, {"gpus", nlohmann::json::array()}};
  for (const GpuDescription& g : gpus)
    j["gpus"].push_back({{"name", g.name},
                         {"arch", g.arch},
                         {"pci_bus_id", g.pci_bus_id},
                         {"multiprocessors", g.multiprocessors},
                         {"l2_bytes", g.l2_bytes}});
  return j;
}

GpuInventory GpuInventory::from_json(const nlohmann::json& j) {
  GpuInventory inv;
  inv.driver_version = j.value("driver_version", 0);
  for (const auto& g : j.value("gpus", nlohmann::json::array()))
    inv.gpus.push_back({g.value("name", ""), g.value("arch", ""), g.value("pci_bus_id", ""),
                        g.value("multiprocessors", 0), g.value("l2_bytes", int64_t{0})});
  return inv;
}

Result<GpuInventory> probe_gpus_here() {
  KGATE_RETURN_IF_ERROR(probe_gpu());
  auto api = calls();
  if (!api.ok()) return api.error();
  const Calls& c = **api;
  GpuInventory inv;
  KGATE_RETURN_IF_ERROR(check(c.cuDriverGetVersion(&inv.driver_version), "cuDriverGetVersion"));
  int count = 0;
  KGATE_RETURN_IF_ERROR(check(c.cuDeviceGetCount(&count), "cuDeviceGetCount"));
  for (int i = 0; i < count; ++i) {
    CUdevice dev;
    KGATE_RETURN_IF_ERROR(check(c.cuDeviceGet(&dev, i), "cuDeviceGet"));
    GpuDescription g;
    char text[256] = {};
    KGATE_RETURN_IF_ERROR(check(c.cuDeviceGetName(text, sizeof text, dev), "cuDeviceGetName"));
    g.name = text;
    KGATE_RETURN_IF_ERROR(
        check(c.cuDeviceGetPCIBusId(text, sizeof text, dev), "cuDeviceGetPCIBusId"));
    g.pci_bus_id = text;
    int major = 0, minor = 0, sms = 0, l2 = 0;
    KGATE_RETURN_IF_ERROR(
        check(c.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
              "cuDeviceGetAttribute"));
    KGATE_RETURN_IF_ERROR(
        check(c.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
              "cuDeviceGetAttribute"));
    KGATE_RETURN_IF_ERROR(
        check(c.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev),
              "cuDeviceGetAttribute"));
    KGATE_RETURN_IF_ERROR(check(c.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev),
                                "cuDeviceGetAttribute"));
    g.arch = "sm_" + std::to_string(major) + std::to_string(minor);
    g.multiprocessors = sms;
    g.l2_bytes = l2;
    inv.gpus.push_back(g);
  }
  if (inv.gpus.empty())
    return Error::infrastructure(
        "no GPU found: the driver sees no CUDA device (check CUDA_VISIBLE_DEVICES)");
  return inv;
}

Result<GpuInventory> gpu_inventory() {
  static Result<GpuInventory> cached = []() -> Result<GpuInventory> {
    // The driver library may simply be absent: say so without forking.
    if (auto api = driver(); !api.ok()) return api.error();
    ChildOutcome child = run_in_child(
        [] {
          auto inv = probe_gpus_here();
          nlohmann::json j = inv.ok()
                                 ? nlohmann::json{{"ok", true}, {"inventory", inv->to_json()}}
                                 : nlohmann::json{{"ok", false}, {"error", inv.error().message}};
          return j.dump();
        },
        60);
    if (!child.completed)
      return Error::infrastructure("no GPU found: the driver probe " + child.describe(60));
    auto j = nlohmann::json::parse(child.payload, nullptr, false);
    if (j.is_discarded())
      return Error::infrastructure("no GPU found: the driver probe answered nonsense");
    if (!j.value("ok", false))
      return Error::infrastructure(j.value("error", std::string("no GPU found")));
    return GpuInventory::from_json(j["inventory"]);
  }();
  return cached;
}

}  // namespace kgate::cuda
