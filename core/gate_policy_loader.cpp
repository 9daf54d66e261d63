#include "core/gate_policy_loader.h"

#include <algorithm>
#include <cmath>

#include "core/manifest_loader.h"
#include "core/shape_loader.h"

namespace kgate {

Result<GatePolicy> load_gate_policy(const ManifestReader& reader, const nlohmann::json& gate) {
  if (!gate.is_object()) return reader.fail("gate", "expected an object");
  KGATE_RETURN_IF_ERROR(reader.check_keys(
      gate, "gate",
      {"max_regression", "min_improvement", "confidence", "budget_s", "resolution", "min_change_s",
       "timing_by_phase", "launch_floor_factor", "launch_floor_max_bytes", "oracle",
       "host_reference_max_elements", "sanitize"}));
  GatePolicy p;
  auto read = [&](const char* key, double& field, double lo, double hi) -> Status {
    auto value = reader.get_number(gate, "gate", key, field);
    if (!value.ok()) return value.error();
    if (*value < lo || *value > hi)
      return reader.fail(std::string("gate.") + key, "expected a number in [" + std::to_string(lo) +
                                                         ", " + std::to_string(hi) + "]");
    field = *value;
    return {};
  };
  KGATE_RETURN_IF_ERROR(read("max_regression", p.max_regression, 0.0, 10.0));
  KGATE_RETURN_IF_ERROR(read("min_improvement", p.min_improvement, 0.0, 10.0));
  KGATE_RETURN_IF_ERROR(read("confidence", p.confidence, 0.5, 0.9999));
  KGATE_RETURN_IF_ERROR(read("budget_s", p.budget_s, 0.01, 3600.0));
  KGATE_RETURN_IF_ERROR(read("resolution", p.resolution, 0.0, 1.0));
  if (gate.contains("min_change_s"))
    KGATE_RETURN_IF_ERROR(read("min_change_s", p.min_change_s, 0.0, 1.0));
  KGATE_RETURN_IF_ERROR(read("launch_floor_factor", p.launch_floor_factor, 0.0, 100.0));
  if (p.launch_floor_factor > 0 && p.launch_floor_factor < 1)
    return reader.fail("gate.launch_floor_factor",
                       "expected 0 (rule off) or a factor of at least 1 (times the empty launch)");
  auto read_count = [&](const char* key, int64_t& field) -> Status {
    auto it = gate.find(key);
    if (it == gate.end()) return {};
    if (!it->is_number_integer() || it->get<int64_t>() < 0)
      return reader.fail(std::string("gate.") + key,
                         std::string("expected a non-negative integer, got ") + it->dump());
    field = it->get<int64_t>();
    return {};
  };
  KGATE_RETURN_IF_ERROR(read_count("launch_floor_max_bytes", p.launch_floor_max_bytes));
  KGATE_RETURN_IF_ERROR(read_count("host_reference_max_elements", p.host_reference_max_elements));
  if (auto oracle = gate.find("oracle"); oracle != gate.end()) {
    if (*oracle == "reference")
      p.oracle = GatePolicy::Oracle::kReference;
    else if (*oracle == "base")
      p.oracle = GatePolicy::Oracle::kBase;
    else
      return reader.fail("gate.oracle",
                         "expected \"reference\" or \"base\" (the base revision's outputs judge "
                         "shapes too large for the host reference), got " +
                             oracle->dump());
  }
  if (auto phases = gate.find("timing_by_phase"); phases != gate.end()) {
    if (!phases->is_object())
      return reader.fail("gate.timing_by_phase",
                         "expected an object of phase: timing, e.g. {\"edge\": \"report\"}");
    for (const auto& [phase, value] : phases->items()) {
      auto timing = load_shape_timing(reader, value, "gate.timing_by_phase." + phase);
      if (!timing.ok()) return timing.error();
      p.timing_by_phase[phase] = *timing;
    }
  }
  if (auto tools = gate.find("sanitize"); tools != gate.end()) {
    if (!tools->is_array())
      return reader.fail("gate.sanitize", "expected an array of compute-sanitizer tools");
    for (size_t i = 0; i < tools->size(); ++i) {
      const nlohmann::json& t = (*tools)[i];
      std::string where = "gate.sanitize[" + std::to_string(i) + "]";
      if (!t.is_string() || !is_sanitizer_tool(t.get<std::string>()))
        return reader.fail(where,
                           "expected \"memcheck\", \"racecheck\", \"initcheck\" or \"synccheck\"");
      if (std::find(p.sanitize.begin(), p.sanitize.end(), t.get<std::string>()) != p.sanitize.end())
        return reader.fail(where, "'" + t.get<std::string>() + "' is listed twice");
      p.sanitize.push_back(t.get<std::string>());
    }
  }
  return p;
}

}  // namespace kgate
