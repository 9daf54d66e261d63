#include "runner/cuda/gpu_inventory.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <optional>
#include <sstream>

#include "core/subprocess.h"
#include "runner/cuda/cuda_driver.h"

namespace kgate::cuda {
namespace {

// /sys/bus/pci/devices/<bus id>/local_cpulist: the CPUs of the GPU's NUMA
// node. sysfs spells the domain in lower case with 4 digits; the driver's
// bus id may have 8 ("00000000:18:00.0").
std::vector<int> cpus_near(const std::string& pci_bus_id) {
  std::string id = pci_bus_id;
  std::transform(id.begin(), id.end(), id.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (size_t colon = id.find(':'); colon != std::string::npos && colon > 4)
    id = id.substr(colon - 4);
  std::ifstream in("/sys/bus/pci/devices/" + id + "/local_cpulist");
  std::string line;
  if (!std::getline(in, line)) return {};
  return parse_cpu_list(line);
}

}  // namespace

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> out;
  std::stringstream parts(text);
  for (std::string part; std::getline(parts, part, ',');) {
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
    if (part.empty()) continue;
    int first = 0, last = 0;
    char extra = 0;
    if (std::sscanf(part.c_str(), "%d-%d%c", &first, &last, &extra) == 2) {
    } else if (std::sscanf(part.c_str(), "%d%c", &first, &extra) == 1) {
      last = first;
    } else {
      return {};
    }
    if (first < 0 || last < first || last > 65535) return {};
    for (int cpu = first; cpu <= last; ++cpu) out.push_back(cpu);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

int recorded_gpu_index(int ordinal, int visible) {
  const char* env = std::getenv("KGATE_GPU_INDEX");
  if (!env || !*env || visible != 1) return ordinal;
  char* end = nullptr;
  long index = std::strtol(env, &end, 10);
  return *end == '\0' && index >= 0 && index < 4096 ? static_cast<int>(index) : ordinal;
}

std::string format_uuid(const CUuuid& uuid) {
  std::string out = "GPU-";
  char hex[3];
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += hex;
  }
  return out;
}

nlohmann::json GpuInventory::to_json() const {
  nlohmann::json j = {{"driver_version", driver_version}, {"gpus", nlohmann::json::array()}};
  for (const GpuDescription& g : gpus)
    j["gpus"].push_back({{"name", g.name},
                         {"arch", g.arch},
                         {"pci_bus_id", g.pci_bus_id},
                         {"multiprocessors", g.multiprocessors},
                         {"l2_bytes", g.l2_bytes},
                         {"index", g.index},
                         {"uuid", g.uuid},
                         {"peak_sm_clock_mhz", g.peak_sm_clock_mhz},
                         {"peak_memory_clock_mhz", g.peak_memory_clock_mhz},
                         {"local_cpus", g.local_cpus}});
  return j;
}

GpuInventory GpuInventory::from_json(const nlohmann::json& j) {
  GpuInventory inv;
  inv.driver_version = j.value("driver_version", 0);
  for (const auto& g : j.value("gpus", nlohmann::json::array())) {
    GpuDescription d;
    d.name = g.value("name", "");
    d.arch = g.value("arch", "");
    d.pci_bus_id = g.value("pci_bus_id", "");
    d.multiprocessors = g.value("multiprocessors", 0);
    d.l2_bytes = g.value("l2_bytes", int64_t{0});
    d.index = g.value("index", static_cast<int>(inv.gpus.size()));
    d.uuid = g.value("uuid", "");
    d.peak_sm_clock_mhz = g.value("peak_sm_clock_mhz", 0.0);
    d.peak_memory_clock_mhz = g.value("peak_memory_clock_mhz", 0.0);
    d.local_cpus = g.value("local_cpus", std::vector<int>{});
    inv.gpus.push_back(std::move(d));
  }
  return inv;
}

Result<GpuDescription> describe_gpu(const Calls& c, int index) {
  CUdevice dev;
  KGATE_RETURN_IF_ERROR(check(c.cuDeviceGet(&dev, index), "cuDeviceGet"));
  GpuDescription g;
  g.index = index;
  char text[256] = {};
  KGATE_RETURN_IF_ERROR(check(c.cuDeviceGetName(text, sizeof text, dev), "cuDeviceGetName"));
  g.name = text;
  KGATE_RETURN_IF_ERROR(
      check(c.cuDeviceGetPCIBusId(text, sizeof text, dev), "cuDeviceGetPCIBusId"));
  g.pci_bus_id = text;
  CUuuid uuid{};
  KGATE_RETURN_IF_ERROR(check(c.cuDeviceGetUuid(&uuid, dev), "cuDeviceGetUuid"));
  g.uuid = format_uuid(uuid);
  int major = 0, minor = 0, sms = 0, l2 = 0, clock_khz = 0, memory_khz = 0;
  auto attr = [&](int& out, CUdevice_attribute a) {
    return check(c.cuDeviceGetAttribute(&out, a, dev), "cuDeviceGetAttribute");
  };
  KGATE_RETURN_IF_ERROR(attr(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
  KGATE_RETURN_IF_ERROR(attr(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  KGATE_RETURN_IF_ERROR(attr(sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  KGATE_RETURN_IF_ERROR(attr(l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  KGATE_RETURN_IF_ERROR(attr(clock_khz, CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
  // Not every driver reports it (it is informational): 0 is unknown.
  if (!attr(memory_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE).ok()) memory_khz = 0;
  g.arch = "sm_" + std::to_string(major) + std::to_string(minor);
  g.multiprocessors = sms;
  g.l2_bytes = l2;
  g.peak_sm_clock_mhz = clock_khz / 1000.0;
  g.peak_memory_clock_mhz = memory_khz / 1000.0;
  g.local_cpus = cpus_near(g.pci_bus_id);
  return g;
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
    auto g = describe_gpu(c, i);
    if (!g.ok()) return g.error();
    inv.gpus.push_back(std::move(g.value()));
  }
  if (inv.gpus.empty())
    return Error::infrastructure(
        "no GPU found: the driver sees no CUDA device (check CUDA_VISIBLE_DEVICES)");
  return inv;
}

namespace {

Result<GpuInventory> probe_in_child() {
  // The driver library may simply be absent: say so without forking.
  if (auto api = driver(); !api.ok()) return api.error();
  ChildOutcome child = run_in_child(
      [] {
        auto inv = probe_gpus_here();
        nlohmann::json j = inv.ok() ? nlohmann::json{{"ok", true}, {"inventory", inv->to_json()}}
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
}

}  // namespace

Result<GpuInventory> gpu_inventory() {
  // Keyed on CUDA_VISIBLE_DEVICES: what the driver would list changes with it.
  static std::mutex mutex;
  static std::optional<std::string> cached_for;
  static Result<GpuInventory> cached = Error::infrastructure("not probed");
  const char* env = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string visible = env ? std::string("=") + env : std::string();  // unset != empty
  std::lock_guard<std::mutex> hold(mutex);
  if (!cached_for || *cached_for != visible) {
    cached = probe_in_child();
    cached_for = visible;
  }
  return cached;
}

}  // namespace kgate::cuda
