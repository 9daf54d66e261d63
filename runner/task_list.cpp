#include "runner/task_list.h"

#include <algorithm>
#include <map>
#include <sstream>

#include "core/entry_name.h"
#include "core/number_format.h"
#include "core/text_table.h"
#include "core/workload_spec.h"

namespace kgate {
namespace {

using json = nlohmann::json;
using Dims = std::array<uint32_t, 3>;

// Accumulates one kernel's launches within a phase (or the whole trace).
struct Tally {
  std::string kernel;
  int64_t launches = 0;
  uint64_t total_ns = 0;
  std::map<std::pair<Dims, Dims>, int64_t> configs;
};

std::vector<TaskKernel> finish(const std::map<std::string, Tally>& tallies, uint64_t phase_ns,
                               uint64_t total_ns) {
  std::vector<TaskKernel> out;
  for (const auto& [name, t] : tallies) {
    TaskKernel k;
    k.name = name;
    k.kernel = t.kernel;
    k.launches = t.launches;
    k.total_ns = t.total_ns;
    k.share_of_phase = phase_ns ? double(t.total_ns) / double(phase_ns) : 0;
    k.share_of_total = total_ns ? double(t.total_ns) / double(total_ns) : 0;
    int64_t best = -1;
    for (const auto& [dims, count] : t.configs)
      if (count > best) best = count, k.grid = dims.first, k.block = dims.second;
    k.configs = int(t.configs.size());
    out.push_back(std::move(k));
  }
  std::stable_sort(out.begin(), out.end(), [](const TaskKernel& a, const TaskKernel& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

std::string dims(const Dims& d) {
  std::string s = std::to_string(d[0]);
  if (d[1] != 1 || d[2] != 1) s += "x" + std::to_string(d[1]);
  if (d[2] != 1) s += "x" + std::to_string(d[2]);
  return s;
}

std::string percent(double share) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << share * 100 << "%";
  return s.str();
}

}  // namespace

json TaskKernel::to_json() const {
  return {{"name", name},
          {"kernel", kernel.empty() ? json(nullptr) : json(kernel)},
          {"launches", launches},
          {"total_ns", total_ns},
          {"share_of_phase", share_of_phase},
          {"share_of_total", share_of_total},
          {"grid", grid},
          {"block", block},
          {"configs", configs}};
}

TaskKernel TaskKernel::from_json(const json& j) {
  TaskKernel k;
  k.name = j.value("name", "");
  if (j.contains("kernel") && j["kernel"].is_string()) k.kernel = j["kernel"];
  k.launches = j.value("launches", int64_t(0));
  k.total_ns = j.value("total_ns", uint64_t(0));
  k.share_of_phase = j.value("share_of_phase", 0.0);
  k.share_of_total = j.value("share_of_total", 0.0);
  if (j.contains("grid")) k.grid = j["grid"].get<Dims>();
  if (j.contains("block")) k.block = j["block"].get<Dims>();
  k.configs = j.value("configs", 0);
  return k;
}

double TaskList::kernel_share(const std::string& kernel) const {
  double share = 0;
  for (const TaskKernel& k : kernels)
    if (k.kernel == kernel) share += k.share_of_total;
  return share;
}

json TaskList::to_json() const {
  json j = {{"version", 1},
            {"total_ns", total_ns},
            {"launches", launches},
            {"nvtx", nvtx},
            {"dropped_records", dropped_records},
            {"phases", json::array()},
            {"kernels", json::array()}};
  for (const PhaseTasks& p : phases) {
    json ks = json::array();
    for (const TaskKernel& k : p.kernels) ks.push_back(k.to_json());
    j["phases"].push_back(
        {{"phase", p.phase}, {"total_ns", p.total_ns}, {"share", p.share}, {"kernels", ks}});
  }
  for (const TaskKernel& k : kernels) j["kernels"].push_back(k.to_json());
  return j;
}

Result<TaskList> TaskList::from_json(const json& j) {
  if (!j.is_object() || j.value("version", 0) != 1 || !j.contains("phases"))
    return Error::bad_input("not a kgate task list (version 1): run `kgate extract` again");
  TaskList t;
  t.total_ns = j.value("total_ns", uint64_t(0));
  t.launches = j.value("launches", int64_t(0));
  t.nvtx = j.value("nvtx", false);
  t.dropped_records = j.value("dropped_records", 0L);
  for (const json& p : j["phases"]) {
    PhaseTasks phase;
    phase.phase = p.value("phase", "");
    phase.total_ns = p.value("total_ns", uint64_t(0));
    phase.share = p.value("share", 0.0);
    for (const json& k : p.value("kernels", json::array()))
      phase.kernels.push_back(TaskKernel::from_json(k));
    t.phases.push_back(std::move(phase));
  }
  for (const json& k : j.value("kernels", json::array()))
    t.kernels.push_back(TaskKernel::from_json(k));
  return t;
}

std::string match_manifest_kernel(const std::string& launch_name, const Manifest& manifest) {
  std::string plain = demangle(launch_name);
  auto matches = [&](const std::string& entry) {
    if (entry.empty()) return false;
    if (launch_name == entry || plain == entry) return true;
    // Any instantiation of a template-id entry ("reduce6<float, BLOCK, true>")
    // is that kernel; a function template's demangled name starts with its
    // return type ("void reduce6<float, 256u, true>(float*, ...)").
    auto parsed = EntryName::parse(entry);
    std::string name = parsed.ok() ? parsed->name() : entry;
    std::string_view p = plain;
    if (p.rfind("void ", 0) == 0 && name.rfind("void", 0) != 0) p.remove_prefix(5);
    if (p.rfind(name, 0) != 0 || p.size() == name.size()) return false;
    char next = p[name.size()];
    return next == '(' || next == '<';
  };
  for (const Kernel& k : manifest.kernels)
    if (const Implementation* impl = k.implementation("cuda"); impl && matches(impl->entry))
      return k.name;
  for (const Kernel& k : manifest.kernels)
    for (const Implementation& impl : k.implementations)
      if (matches(impl.entry)) return k.name;
  return "";
}

std::string phase_of(const std::string& range_path, const std::vector<std::string>& phases) {
  if (range_path.empty()) return kOutsidePhases;
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(range_path);
  while (std::getline(in, part, '/')) parts.push_back(part);
  for (const std::string& p : parts)
    if (std::find(phases.begin(), phases.end(), p) != phases.end()) return p;
  return parts.empty() ? std::string(kOutsidePhases) : parts.front();
}

TaskList build_task_list(const LaunchTrace& trace, const Manifest& manifest) {
  std::vector<std::string> declared;
  if (auto spec = workload_spec(manifest)) declared = spec->phases;
  TaskList tasks;
  tasks.launches = int64_t(trace.launches.size());
  tasks.nvtx = trace.nvtx_pushes > 0;
  tasks.dropped_records = trace.dropped_records;
  std::vector<std::string> order;
  std::map<std::string, std::map<std::string, Tally>> per_phase;
  std::map<std::string, uint64_t> phase_ns;
  std::map<std::string, Tally> overall;
  std::map<std::string, std::string> matched;  // launch name -> manifest kernel (cache)
  for (const TracedLaunch& l : trace.launches) {
    std::string phase = phase_of(l.range, declared);
    if (!per_phase.count(phase)) order.push_back(phase);
    auto m = matched.find(l.name);
    if (m == matched.end())
      m = matched.emplace(l.name, match_manifest_kernel(l.name, manifest)).first;
    std::string name = demangle(l.name);
    for (Tally* t : {&per_phase[phase][name], &overall[name]}) {
      t->kernel = m->second;
      t->launches++;
      t->total_ns += l.duration_ns();
      t->configs[{l.grid, l.block}]++;
    }
    phase_ns[phase] += l.duration_ns();
    tasks.total_ns += l.duration_ns();
  }
  for (const std::string& phase : order) {
    PhaseTasks p;
    p.phase = phase;
    p.total_ns = phase_ns[phase];
    p.share = tasks.total_ns ? double(p.total_ns) / double(tasks.total_ns) : 0;
    p.kernels = finish(per_phase[phase], p.total_ns, tasks.total_ns);
    tasks.phases.push_back(std::move(p));
  }
  tasks.kernels = finish(overall, tasks.total_ns, tasks.total_ns);
  return tasks;
}

std::string render_task_list(const TaskList& tasks, size_t max_per_phase) {
  TextTable table({"phase", "kernel", "manifest", "share of phase", "share of total", "launches",
                   "time", "grid", "block"});
  for (const PhaseTasks& p : tasks.phases) {
    size_t shown = 0;
    for (const TaskKernel& k : p.kernels) {
      if (shown++ == max_per_phase) break;
      std::string name = k.name.size() > 48 ? k.name.substr(0, 45) + "..." : k.name;
      table.add({p.phase + " (" + percent(p.share) + ")", name,
                 k.kernel.empty() ? "not in manifest" : k.kernel, percent(k.share_of_phase),
                 percent(k.share_of_total), std::to_string(k.launches),
                 format_seconds(double(k.total_ns) * 1e-9),
                 dims(k.grid) + (k.configs > 1 ? " (+" + std::to_string(k.configs - 1) + ")" : ""),
                 dims(k.block)});
    }
    if (p.kernels.size() > max_per_phase)
      table.add({p.phase, "(" + std::to_string(p.kernels.size() - max_per_phase) + " more)", "", "",
                 "", "", "", "", ""});
  }
  return table.render();
}

}  // namespace kgate
