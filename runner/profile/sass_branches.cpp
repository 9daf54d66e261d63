#include "runner/profile/sass_branches.h"

#include <nlohmann/json.hpp>

#include "core/subprocess.h"

namespace kgate::profile {
namespace {

// One metric in its own child; the total travels back as JSON.
Result<SassTotal> count_in_child(const CountSassMetric& count, const std::string& metric,
                                 double timeout_s) {
  ChildOutcome child = run_in_child(
      [&]() -> std::string {
        auto r = count(metric);
        if (!r.ok()) return nlohmann::json{{"error", r.error().message}}.dump();
        return nlohmann::json{{"sum", double(r->samples)}, {"instructions", r->pcs.size()}}.dump();
      },
      timeout_s);
  if (!child.completed)
    return Error::infrastructure("counting " + metric + ": the child " + child.describe(timeout_s) +
                                 (child.err_tail.empty() ? "" : ": " + child.err_tail));
  nlohmann::json j = nlohmann::json::parse(child.payload, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return Error::infrastructure("counting " + metric + ": unreadable answer from the child");
  if (j.contains("error")) return Error::infrastructure(j["error"].get<std::string>());
  return SassTotal{j.value("sum", 0.0), j.value("instructions", size_t(0))};
}

}  // namespace

void record_sass_branches(profile_model::ProfileData& p, const Result<SassTotal>& executed,
                          const Result<SassTotal>& divergent) {
  if (!executed.ok() || !divergent.ok()) {
    std::string why = !executed.ok() ? executed.error().message : divergent.error().message;
    p.missing[kSassBranchesMissing] =
        why + "; branch efficiency falls back to the range profiler's counters";
    return;
  }
  p.metrics[profile_model::metric::kSassApiBranchExecuted] = executed->sum;
  p.metrics[profile_model::metric::kSassApiBranchDivergent] = divergent->sum;
  // Both metrics apply to the same branch instructions; the count of
  // executions says whether there are any.
  p.metrics[profile_model::metric::kSassApiBranchInstructions] = double(executed->instructions);
}

void add_sass_branches(profile_model::ProfileData& p, const CountSassMetric& count,
                       double timeout_s) {
  Result<SassTotal> executed = count_in_child(count, kSassBranchMetric, timeout_s);
  // A failed first count (no SASS API here) is not tried twice.
  Result<SassTotal> divergent =
      executed.ok() ? count_in_child(count, kSassDivergentMetric, timeout_s) : executed;
  record_sass_branches(p, executed, divergent);
}

}  // namespace kgate::profile
