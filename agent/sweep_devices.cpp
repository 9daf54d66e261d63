#include "agent/sweep_devices.h"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <thread>

#include "core/log.h"

namespace kgate {
namespace {

// "GPU-5f2c1ab4-..." -> "GPU-5f2c1ab4": enough to tell GPUs apart in a line.
std::string short_uuid(const std::string& uuid) {
  return uuid.size() > 12 ? uuid.substr(0, 12) : uuid;
}

Result<int> parse_index(const std::string& word, const std::string& whole) {
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos || word.size() > 4)
    return Error::bad_input("--gpus " + whole + ": '" + word +
                            "' is not a GPU index (write all, or indices and ranges: 0,2 or 0-3)");
  return std::stoi(word);
}

}  // namespace

Result<std::vector<int>> parse_gpu_list(const std::string& text) {
  std::vector<int> out;
  if (text.empty() || text == "all") return out;
  std::set<int> seen;
  // Every entry between commas, empty ones too ("0,", "0,,1"): parse_index refuses them.
  for (size_t begin = 0, comma = 0; comma != std::string::npos; begin = comma + 1) {
    comma = text.find(',', begin);
    const std::string part = text.substr(begin, comma == std::string::npos ? comma : comma - begin);
    const size_t dash = part.find('-');
    auto first = parse_index(dash == std::string::npos ? part : part.substr(0, dash), text);
    if (!first.ok()) return first.error();
    int last = *first;
    if (dash != std::string::npos) {
      auto l = parse_index(part.substr(dash + 1), text);
      if (!l.ok()) return l.error();
      last = *l;
      if (last < *first)
        return Error::bad_input("--gpus " + text + ": the range " + part + " is empty");
    }
    for (int i = *first; i <= last; ++i) {
      if (!seen.insert(i).second)
        return Error::bad_input("--gpus " + text + ": GPU " + std::to_string(i) +
                                " is named twice");
      out.push_back(i);
    }
  }
  if (out.empty()) return Error::bad_input("--gpus " + text + ": no GPU named");
  return out;
}

std::vector<int> allowed_cpus() {
  std::vector<int> out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
  }
  if (out.empty())
    for (unsigned cpu = 0; cpu < std::max(1u, std::thread::hardware_concurrency()); ++cpu)
      out.push_back(static_cast<int>(cpu));
  return out;
}

void assign_cpus(std::vector<SweepDevice>& devices, const std::vector<std::vector<int>>& near,
                 const std::vector<int>& allowed) {
  for (SweepDevice& d : devices) d.cpus.clear();
  if (devices.size() <= 1) return;  // one worker: as a sweep always ran, not pinned
  // Devices that would use the same CPUs share them.
  std::map<std::vector<int>, std::vector<size_t>> groups;
  for (size_t i = 0; i < devices.size(); ++i) {
    std::vector<int> candidates;
    if (i < near.size())
      for (int cpu : near[i])
        if (std::binary_search(allowed.begin(), allowed.end(), cpu)) candidates.push_back(cpu);
    if (candidates.empty()) candidates = allowed;
    groups[candidates].push_back(i);
  }
  for (const auto& [cpus, members] : groups) {
    const size_t c = cpus.size(), d = members.size();
    if (c == 0) continue;
    for (size_t k = 0; k < d; ++k) {
      std::vector<int>& mine = devices[members[k]].cpus;
      if (c >= d) {
        mine.assign(cpus.begin() + static_cast<long>(k * c / d),
                    cpus.begin() + static_cast<long>((k + 1) * c / d));
      } else {
        mine = {cpus[k % c]};
      }
    }
  }
}

Result<std::vector<SweepDevice>> cuda_sweep_devices(const cuda::GpuInventory& inventory,
                                                    const std::vector<int>& selected,
                                                    const std::vector<int>& allowed) {
  std::vector<int> indices = selected;
  if (indices.empty())
    for (size_t i = 0; i < inventory.gpus.size(); ++i) indices.push_back(static_cast<int>(i));
  std::vector<SweepDevice> devices;
  std::vector<std::vector<int>> near;
  for (int i : indices) {
    if (i < 0 || i >= static_cast<int>(inventory.gpus.size()))
      return Error::bad_input("--gpus: there is no GPU " + std::to_string(i) + " (" +
                              std::to_string(inventory.gpus.size()) +
                              " visible; CUDA_VISIBLE_DEVICES applies first)");
    const cuda::GpuDescription& g = inventory.gpus[i];
    if (g.uuid.empty())
      return Error::infrastructure("GPU " + std::to_string(i) +
                                   ": the driver gave no UUID to confine a worker to it");
    if (!devices.empty() && (g.name != devices.front().name))
      return Error::bad_input(
          "--gpus selects GPUs of different models (GPU " + std::to_string(devices.front().index) +
          ": " + devices.front().name + ", GPU " + std::to_string(i) + ": " + g.name +
          "): a sweep's results must not depend on which GPU ran a kernel; run one sweep per "
          "model (--gpus with the GPUs of one model), or one shard per model in the nightly "
          "workflow (docs/runners.md)");
    SweepDevice d;
    d.index = i;
    d.name = g.name;
    d.uuid = g.uuid;
    d.label = "gpu " + std::to_string(i);
    // The UUID names the GPU whatever the order CUDA enumerates in, and
    // KGATE_GPU_INDEX is the index its results record (gpu_inventory.h).
    d.env = {{"CUDA_VISIBLE_DEVICES", g.uuid}, {"KGATE_GPU_INDEX", std::to_string(i)}};
    devices.push_back(std::move(d));
    near.push_back(g.local_cpus);
  }
  assign_cpus(devices, near, allowed);
  return devices;
}

Result<std::vector<SweepDevice>> host_sweep_devices(const std::vector<int>& selected,
                                                    const std::vector<int>& allowed) {
  std::vector<int> indices = selected.empty() ? std::vector<int>{0} : selected;
  std::vector<SweepDevice> devices;
  for (int i : indices) {
    SweepDevice d;
    d.index = i;
    d.name = "host";
    d.uuid = "host";
    d.label = "host " + std::to_string(i);
    devices.push_back(std::move(d));
  }
  assign_cpus(devices, {}, allowed);
  return devices;
}

Result<std::vector<SweepDevice>> sweep_devices(const std::string& backend,
                                               const std::string& gpus) {
  auto selected = parse_gpu_list(gpus);
  if (!selected.ok()) return selected.error();
  const std::vector<int> allowed = allowed_cpus();
  Result<std::vector<SweepDevice>> devices = Error::bad_input("no backend '" + backend + "'");
  if (backend == "cuda") {
    auto inventory = cuda::gpu_inventory();
    if (!inventory.ok()) return inventory.error();
    devices = cuda_sweep_devices(*inventory, *selected, allowed);
  } else {
    devices = host_sweep_devices(*selected, allowed);
  }
  if (!devices.ok() || devices->size() < 2) return devices;
  std::string line = "sweep: " + std::to_string(devices->size()) + " workers:";
  bool shared = false;
  std::map<int, int> users;
  for (const SweepDevice& d : *devices) {
    for (int cpu : d.cpus) shared |= ++users[cpu] > 1;
    line += " " + d.label + (d.uuid != "host" ? " (" + short_uuid(d.uuid) + ")" : "") + " on " +
            std::to_string(d.cpus.size()) + " CPU" + (d.cpus.size() == 1 ? "" : "s") + ";";
  }
  line.pop_back();
  progress(line);
  if (shared)
    warn("sweep: fewer CPUs than workers (" + std::to_string(allowed.size()) +
         "): workers share CPUs, so a compile or host reference can slow another GPU's timing "
         "loop; select fewer GPUs (--gpus)");
  return devices;
}

}  // namespace kgate
