#include "runner/oracle.h"

#include <deque>

#include "runner/device_reference.h"

namespace kgate {
namespace {

// `plan` with its outputs and in/out buffers typed float64, and `outputs`
// as their bytes: so compare_outputs (which reads kernel output bytes) can
// compare a double-precision reference with the host's, poison included.
struct DoublePlan {
  std::deque<Arg> args;
  LaunchPlan plan;
  HostData bytes;
};

DoublePlan as_double_plan(const LaunchPlan& plan, const DoubleData& outputs) {
  DoublePlan d;
  d.plan = plan;
  d.bytes.resize(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.compared()) continue;
    d.args.push_back(*a.arg);
    d.args.back().dtype = DType::kFloat64;
    d.plan.args[i].arg = &d.args.back();
    d.plan.args[i].bytes = static_cast<size_t>(a.count) * sizeof(double);
    const auto* p = reinterpret_cast<const unsigned char*>(outputs[i].data());
    d.bytes[i].assign(p, p + outputs[i].size() * sizeof(double));
  }
  return d;
}

}  // namespace

std::string_view to_string(OracleKind kind) {
  switch (kind) {
    case OracleKind::kHostReference:
      return "host reference";
    case OracleKind::kDeviceReference:
      return "device reference";
    case OracleKind::kBase:
      return "base";
  }
  return "host reference";
}

double oracle_tolerance_factor(OracleKind kind) {
  return kind == OracleKind::kBase ? 2.0 : 1.0;
}

Result<std::shared_ptr<const ReferenceSets>> prepare_oracle(const OracleSources& s) {
  const std::vector<uint64_t> seeds = {s.seed, s.seed + 1};
  if (s.kind == OracleKind::kHostReference) {
    if (s.kept && s.kept->size() == 2 && (*s.kept)[0].seed == s.seed &&
        (*s.kept)[1].seed == s.seed + 1)
      return s.kept;
    return std::make_shared<const ReferenceSets>(
        prepare_reference_sets(*s.host_reference, *s.plan, seeds, s.stored));
  }
  auto sets = std::make_shared<ReferenceSets>(seeds.size());
  for (size_t i = 0; i < seeds.size(); ++i) {
    ReferenceSet& set = (*sets)[i];
    set.seed = seeds[i];
    if (s.draw_set) {
      auto drawn = s.draw_set(seeds[i], i);
      if (!drawn.ok()) return Error::infrastructure("drawing the inputs: " + drawn.error().message);
      set.inputs = std::move(drawn.value());
    } else {
      set.inputs = make_inputs(*s.plan, seeds[i]);
    }
    const StagedInputs* staged = s.staged_set ? s.staged_set(i) : nullptr;
    if (s.kind == OracleKind::kBase) {
      auto out = s.run_base(set.inputs, i);
      if (!out.ok()) return Error::infrastructure("base failed to run: " + out.error().message);
      set.expected = outputs_as_double(*s.plan, *out);
    } else {
      auto out = run_device_reference(*s.device, *s.device_reference, s.reference_dims, *s.plan,
                                      set.inputs, staged);
      if (!out.ok())
        return Error::infrastructure("the reference kernel failed to run: " + out.error().message);
      set.expected = std::move(out.value());
    }
  }
  return std::shared_ptr<const ReferenceSets>(std::move(sets));
}

Result<CheckReport> check_device_reference(const OracleSources& s, const ReferenceSet& host_set) {
  auto out = run_device_reference(*s.device, *s.device_reference, s.reference_dims, *s.plan,
                                  host_set.inputs);
  if (!out.ok())
    return Error::infrastructure("the reference kernel failed to run: " + out.error().message);
  DoublePlan d = as_double_plan(*s.plan, *out);
  CheckReport report =
      compare_outputs(d.plan, d.bytes, host_set.expected, kReferenceAgreementFactor);
  report.seed = host_set.seed;
  return report;
}

}  // namespace kgate
