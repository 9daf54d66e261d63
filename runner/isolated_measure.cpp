#include "runner/isolated_measure.h"

#include "core/subprocess.h"

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

}  // namespace

ShapeMeasurement measure_shape(const MeasureRequest& request) {
  ChildOutcome child = run_in_child(
      [&request]() { return measure_in_process(request).to_json().dump(); }, request.time_limit_s);
  if (child.completed) {
    auto j = nlohmann::json::parse(child.payload, nullptr, false);
    if (!j.is_discarded()) return ShapeMeasurement::from_json(j);
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
  bool kernel_at_fault = phase.rfind("head", 0) == 0 || phase.rfind("base", 0) == 0;
  std::string who = phase.rfind("base", 0) == 0 ? "the base version" : "the kernel";
  m.status =
      kernel_at_fault && phase.rfind("base", 0) != 0 ? MeasureStatus::kFail : MeasureStatus::kError;
  m.reason = (kernel_at_fault ? who : std::string("the harness")) + " " + what +
             (phase.empty() ? "" : " during " + phase) + " (" +
             child.describe(request.time_limit_s) + ")";
  if (!messages.empty()) {
    while (!messages.empty() && messages.back() == '\n') messages.pop_back();
    m.reason += ": " + messages;
  }
  return m;
}

}  // namespace kgate
