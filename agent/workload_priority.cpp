#include "agent/workload_priority.h"

#include <algorithm>
#include <sstream>

#include "core/file_util.h"

namespace kgate {
namespace {

std::string pct(double share) {
  std::ostringstream s;
  s.setf(std::ios::fixed);
  s.precision(1);
  s << share * 100 << "%";
  return s.str();
}

std::string dims(const std::array<uint32_t, 3>& d) {
  return "[" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) +
         "]";
}

}  // namespace

std::filesystem::path task_list_path(const std::filesystem::path& state_dir) {
  return state_dir / "workload" / "tasks.json";
}

Result<std::optional<TaskList>> load_task_list(const std::filesystem::path& state_dir) {
  auto path = task_list_path(state_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<TaskList>();
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_discarded())
    return Error::bad_input(path.string() + ": not valid JSON; run `kgate extract` again");
  try {
    auto tasks = TaskList::from_json(doc);
    if (!tasks.ok()) return tasks.error().with_context(path.string());
    return std::optional<TaskList>(std::move(tasks.value()));
  } catch (const nlohmann::json::exception& e) {
    // A null share (0/0 written as null) or a field edited by hand.
    return Error::bad_input(path.string() + ": unreadable task list (" + e.what() +
                            "); run `kgate extract` again");
  }
}

std::vector<const Kernel*> order_by_workload(const Manifest& manifest, const TaskList* tasks) {
  std::vector<const Kernel*> order;
  for (const Kernel& k : manifest.kernels) order.push_back(&k);
  if (!tasks) return order;
  std::stable_sort(order.begin(), order.end(), [&](const Kernel* a, const Kernel* b) {
    return tasks->kernel_share(a->name) > tasks->kernel_share(b->name);
  });
  return order;
}

std::vector<double> split_sweep_budget(const std::vector<const Kernel*>& order,
                                       const TaskList* tasks, double total_s) {
  const size_t n = order.size();
  std::vector<double> budgets(n, 0);
  if (n == 0) return budgets;
  double shares = 0;
  for (const Kernel* k : order) shares += tasks ? tasks->kernel_share(k->name) : 0;
  for (size_t i = 0; i < n; ++i) {
    double weight = shares > 0 ? tasks->kernel_share(order[i]->name) / shares : 1.0 / n;
    budgets[i] = total_s * (0.5 / n + 0.5 * weight);
  }
  return budgets;
}

double next_sweep_budget(const std::vector<const Kernel*>& rest, const TaskList* tasks,
                         double left_s) {
  if (rest.empty() || left_s <= 0) return 0;
  return split_sweep_budget(rest, tasks, left_s).front();
}

std::string workload_focus(const TaskList& tasks, const Kernel& kernel) {
  double total = tasks.kernel_share(kernel.name);
  if (total <= 0) return "";
  std::ostringstream out;
  out << kernel.name << " takes " << pct(total) << " of the workload's GPU time.\n";
  std::string hottest_phase;
  double hottest = 0;
  for (const PhaseTasks& p : tasks.phases) {
    for (const TaskKernel& k : p.kernels) {
      if (k.kernel != kernel.name) continue;
      out << "- " << p.phase << ": " << pct(k.share_of_phase) << " of the phase ("
          << pct(k.share_of_total) << " of all), " << k.launches << " launches, typical grid "
          << dims(k.grid) << " block " << dims(k.block);
      if (k.configs > 1) out << " (" << k.configs << " launch configurations)";
      out << "\n";
      if (k.share_of_total > hottest) hottest = k.share_of_total, hottest_phase = p.phase;
    }
  }
  if (!hottest_phase.empty()) {
    out << "The phase that matters most is " << hottest_phase << ".";
    std::string shapes;
    for (const Shape& s : kernel.shapes)
      if (s.phase == hottest_phase) shapes += (shapes.empty() ? "" : ", ") + s.name;
    if (!shapes.empty()) out << " Its shapes: " << shapes << ".";
    out << " A change that slows " << hottest_phase << " shapes to gain elsewhere is a loss.\n";
  }
  return out.str();
}

std::string hottest_phase(const TaskList& tasks, const Kernel& kernel) {
  std::string phase;
  double hottest = 0;
  for (const PhaseTasks& p : tasks.phases)
    for (const TaskKernel& k : p.kernels)
      if (k.kernel == kernel.name && k.share_of_total > hottest)
        hottest = k.share_of_total, phase = p.phase;
  return phase;
}

std::vector<const Kernel*> sweep_order(const Manifest& manifest,
                                       const std::filesystem::path& state_dir, std::string* note,
                                       std::optional<TaskList>* tasks_out) {
  auto tasks = load_task_list(state_dir);
  if (!tasks.ok()) {
    if (note) *note = tasks.error().message + "; sweeping in manifest order";
    return order_by_workload(manifest, nullptr);
  }
  if (!tasks->has_value()) {
    if (note)
      *note = "no task list at " + task_list_path(state_dir).string() +
              " (run `kgate extract`); sweeping in manifest order";
    return order_by_workload(manifest, nullptr);
  }
  if (tasks_out) *tasks_out = **tasks;
  auto order = order_by_workload(manifest, &**tasks);
  if (note) {
    *note = "sweeping hottest first (workload task list):";
    for (const Kernel* k : order)
      *note += " " + k->name + " " + pct((*tasks)->kernel_share(k->name));
  }
  return order;
}

}  // namespace kgate
