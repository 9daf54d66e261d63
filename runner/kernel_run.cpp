#include "runner/kernel_run.h"

#include "core/log.h"
#include "runner/isolated_measure.h"
#include "runner/measure_setup.h"
#include "runner/oracle_choice.h"
#include "runner/reference_cost.h"

namespace kgate {

bool KernelRunReport::passed() const {
  if (!compiled) return false;
  for (const ShapeMeasurement& m : shapes)
    if (m.status != MeasureStatus::kPass) return false;
  return true;
}

nlohmann::json KernelRunReport::to_json() const {
  nlohmann::json j = {{"kernel", kernel},
                      {"backend", backend},
                      {"compiled", compiled},
                      {"passed", passed()},
                      {"shapes", nlohmann::json::array()}};
  if (compiled)
    j["program"] = program.to_json();
  else
    j["compile_error"] = compile_error;
  for (const ShapeMeasurement& m : shapes) j["shapes"].push_back(m.to_json());
  return j;
}

Result<KernelRunReport> run_kernel(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                                   const KernelRunOptions& options) {
  KernelRunReport report;
  report.kernel = kernel.name;
  report.backend = backend.name();
  const Implementation* impl = kernel.implementation(backend.name());
  if (!impl)
    return Error::bad_input(kernel.name + " has no \"" + backend.name() + "\" implementation in " +
                            manifest.path.string());
  if (!options.shape.empty() && !kernel.shape(options.shape))
    return Error::bad_input(kernel.name + " has no shape '" + options.shape + "'");

  progress("compiling " + kernel.name + " (" + backend.name() + ")");
  auto compiled = compile_implementation(kernel, *impl, backend, manifest.root);
  if (!compiled.ok()) return compiled.error();
  if (!compiled->ok) {
    report.compile_error = compiled->digest();
    return report;
  }
  report.compiled = true;
  report.program = compiled->program;

  auto references = build_references(kernel, manifest.root, backend);
  if (!references.ok()) return references.error();
  const OracleState oracles = references->oracles();

  // What the host reference will cost, said before it is paid.
  warn_slow_references(kernel, references->host,
                       host_judged_shapes(kernel, manifest.gate, backend.name(),
                                          oracles.device_reference, options.shape),
                       kernel.timing.time_limit_s);
  const uint64_t seed = seed_or_clock(options.seed);
  for (size_t i = 0; i < kernel.shapes.size(); ++i) {
    const Shape& shape = kernel.shapes[i];
    if (!options.shape.empty() && shape.name != options.shape) continue;
    if (!shape.runs_on(backend.name())) continue;
    progress("measuring " + kernel.name + " / " + shape.name);
    MeasureRequest m =
        shape_request(kernel, *impl, i, backend, options.gpu, report.program, *references, seed);
    m.oracle = choose_oracle(kernel, shape, manifest.gate, oracles);
    // An empty shape ("allow_empty") is checked only: an empty launch has nothing to time.
    m.time = options.time && !shape.allow_empty;
    if (options.time && shape.allow_empty)
      progress(kernel.name + " / " + shape.name +
               ": an empty shape (\"allow_empty\"): checked against the reference, not timed");
    m.min_samples = kernel.timing.samples;
    m.max_samples = kernel.timing.samples;
    m.budget_s = kernel.timing.time_limit_s;
    m.time_limit_s = kernel.timing.time_limit_s;
    report.shapes.push_back(measure_shape(m));
  }
  return report;
}

}  // namespace kgate
