#include "runner/isolated_measure.h"

#include <optional>

#include "core/subprocess.h"
#include "runner/gpu_lock.h"
#include "runner/launch_plan.h"

namespace kgate {
namespace {

// The last "kgate-phase: X" line the child wrote, and its other stderr lines.
void split_phase(const std::string& err, std::string& phase, std::string& rest) {
  size_t start = 0;
  while (start < err.size()) {
    size_t end = err.find('\n', start);
    if (end == std::string::npos) end = err.size();
    std::string line = err.substr(start, end - start);
    if (line.rfind("kgate-phase: ", 0) == 0)
      phase = line.substr(13);
    else if (!line.empty())
      rest += line + "\n";
    start = end + 1;
  }
}

// One child run of `request`; a child that crashed or hung becomes a failed
// measurement naming the step (and the side) it happened in.
ShapeMeasurement measure_in_child(const MeasureRequest& request, const MeasureRequest& sent,
                                  const std::optional<LaunchPlan>& plan,
                                  const std::vector<uint64_t>& seeds) {
  ChildOutcome child = run_in_child([&sent]() { return measure_in_process(sent).to_json().dump(); },
                                    request.time_limit_s);
  if (child.completed) {
    auto j = nlohmann::json::parse(child.payload, nullptr, false);
    if (!j.is_discarded()) {
      ShapeMeasurement m = ShapeMeasurement::from_json(j);
      // The reference ran to the end in the child on these inputs, so running
      // it here cannot crash this process: keep its sets for the next call.
      if (plan && !sent.reference_sets && m.status == MeasureStatus::kPass)
        (void)request.reference_cache->add(*request.reference, *request.kernel, *request.shape,
                                           *plan, seeds, request.reference_store);
      return m;
    }
  }
  ShapeMeasurement m;
  m.kernel = request.kernel->name;
  m.shape = request.shape->name;
  m.phase = request.shape->phase;
  m.backend = request.backend->name();
  m.seed = request.seed;
  std::string phase, messages;
  split_phase(child.err_tail, phase, messages);
  std::string what = child.timed_out ? "hung" : child.signal ? "crashed" : "died";
  bool head_phase = phase.rfind("head", 0) == 0, base_phase = phase.rfind("base", 0) == 0;
  std::string who = base_phase ? "the base" : head_phase ? "the kernel" : "the harness";
  m.status = head_phase ? MeasureStatus::kFail : MeasureStatus::kError;
  m.reason = who + " " + what + (phase.empty() ? "" : " during " + phase) + " (" +
             child.describe(request.time_limit_s) + ")";
  if (!messages.empty()) {
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    m.reason += ": " + messages;
  }
  if (base_phase) m.base_failure = m.reason;
  return m;
}

}  // namespace

ShapeMeasurement measure_shape(const MeasureRequest& request) {
  // One measuring process per GPU on this host: held (in this parent, so the
  // wait does not count against the child's time limit) until the child ends.
  std::optional<GpuLock> lock;
  if (request.backend->needs_device_lock()) {
    auto name = request.backend->device_lock_name(request.gpu);
    auto held = name.ok() ? GpuLock::acquire(*name) : Result<GpuLock>(name.error());
    if (!held.ok()) {
      ShapeMeasurement m;
      m.kernel = request.kernel->name;
      m.shape = request.shape->name;
      m.phase = request.shape->phase;
      m.backend = request.backend->name();
      m.seed = request.seed;
      m.status = MeasureStatus::kError;
      m.reason = held.error().message;
      return m;
    }
    lock.emplace(std::move(held.value()));
  }
  // Reference sets kept from an earlier measurement: the child reads them
  // from this process's memory instead of drawing and computing them again.
  MeasureRequest sent = request;
  std::optional<LaunchPlan> plan;
  const std::vector<uint64_t> seeds = {request.seed, request.seed + 1};
  if (request.reference_cache && !request.reference_sets && request.reference && request.head &&
      request.oracle == OracleKind::kHostReference) {
    if (auto p = plan_launch(*request.kernel, request.impl, *request.shape, request.head->tunables);
        p.ok()) {
      plan = std::move(p.value());
      sent.reference_sets = request.reference_cache->find(*request.reference, *request.kernel,
                                                          *request.shape, *plan, seeds);
    }
  }
  ShapeMeasurement m = measure_in_child(request, sent, plan, seeds);
  if (m.base_failure.empty() || m.status == MeasureStatus::kPass) return m;
  // The base crashed, hung or failed to run, which may have left the device
  // unusable: that is the base's failure, reported as such, and the head is
  // checked again alone in a fresh process.
  MeasureRequest alone = sent;
  alone.base = nullptr;
  ShapeMeasurement head = measure_in_child(request, alone, plan, seeds);
  head.base_failure = m.base_failure;
  head.base_check = m.base_check;
  return head;
}

}  // namespace kgate
