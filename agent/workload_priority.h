#pragma once
// What the deployed workload says about which kernels matter: the task list
// `kgate extract` stores (<state>/workload/tasks.json) orders a sweep
// hottest first and tells an episode which phase and launch shapes of its
// kernel carry the most GPU time.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/manifest.h"
#include "runner/task_list.h"

namespace kgate {

std::filesystem::path task_list_path(const std::filesystem::path& state_dir);

// The stored task list; nullopt when `kgate extract` has not run. An Error
// when the file exists but cannot be read.
Result<std::optional<TaskList>> load_task_list(const std::filesystem::path& state_dir);

// Manifest kernels by their share of the workload's GPU time, largest first;
// kernels the workload never launched follow in manifest order. Without a
// task list: manifest order.
std::vector<const Kernel*> order_by_workload(const Manifest& manifest, const TaskList* tasks);

// For the episode's context: the kernel's share of GPU time per phase, its
// launch count and typical grid/block there, and the phase that matters most,
// with the manifest shapes of that phase. Empty when the kernel never ran.
std::string workload_focus(const TaskList& tasks, const Kernel& kernel);
// The phase where the kernel spends the largest share of the workload's GPU
// time; empty when it never ran.
std::string hottest_phase(const TaskList& tasks, const Kernel& kernel);

// Splits a sweep's wall time `total_s` over the kernels of `order`: half of it
// in equal parts (every kernel gets a look), the other half by each kernel's
// share of the workload's GPU time (in equal parts too without a task list or
// when none of them ran). The budgets add up to total_s, in `order`'s order.
std::vector<double> split_sweep_budget(const std::vector<const Kernel*>& order,
                                       const TaskList* tasks, double total_s);

// The budget of the next kernel of a sweep, `rest` being it and the kernels
// after it: split_sweep_budget over `rest` of the `left_s` seconds the sweep
// has left, so an episode that ran over (its last iteration and final gate
// run past its budget) is paid for by the later ones and one that stopped
// early leaves them its time. 0 when nothing is left.
double next_sweep_budget(const std::vector<const Kernel*>& rest, const TaskList* tasks,
                         double left_s);

// For `kgate sweep`: the order, with a progress line saying where it came
// from; `tasks`, when given, receives the task list it was read from (left
// empty without one), so the caller does not read it again.
std::vector<const Kernel*> sweep_order(const Manifest& manifest,
                                       const std::filesystem::path& state_dir, std::string* note,
                                       std::optional<TaskList>* tasks = nullptr);

}  // namespace kgate
