#include "runner/kernel_run.h"

#include <chrono>

#include "core/log.h"
#include "runner/isolated_measure.h"
#include "runner/oracle_choice.h"
#include "runner/reference.h"
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
  CompileRequest request;
  request.kernel = &kernel;
  request.impl = impl;
  request.root = manifest.root;
  auto compiled = backend.compile(request);
  if (!compiled.ok()) return compiled.error();
  if (!compiled->ok) {
    report.compile_error = compiled->digest();
    return report;
  }
  report.compiled = true;
  report.program = compiled->program;

  auto reference = build_reference(kernel, manifest.root);
  if (!reference.ok()) return reference.error();
  if (!reference->ok)
    return Error::bad_input("the reference of " + kernel.name + " (" + kernel.reference.source +
                            ") does not compile:\n" + reference->digest());

  // Large shapes are judged by the reference kernel where there is one
  // (runner/oracle_choice.h), small ones by the host reference, checking it.
  auto device_reference = build_device_reference(kernel, manifest.root, backend);
  if (!device_reference.ok()) return device_reference.error();
  OracleState oracles;
  oracles.device_reference = device_reference->has_value();
  // What the host reference will cost, said before it is paid.
  warn_slow_references(kernel, reference->program,
                       host_judged_shapes(kernel, manifest.gate, backend.name(),
                                          oracles.device_reference, options.shape),
                       kernel.timing.time_limit_s);

  uint64_t seed =
      options.seed
          ? options.seed
          : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
  for (size_t i = 0; i < kernel.shapes.size(); ++i) {
    const Shape& shape = kernel.shapes[i];
    if (!options.shape.empty() && shape.name != options.shape) continue;
    if (!shape.runs_on(backend.name())) continue;
    progress("measuring " + kernel.name + " / " + shape.name);
    MeasureRequest m;
    m.kernel = &kernel;
    m.impl = impl;
    m.shape = &shape;
    m.backend = &backend;
    m.gpu = options.gpu;
    m.head = &report.program;
    m.reference = &reference->program;
    m.device_reference = *device_reference ? &**device_reference : nullptr;
    m.oracle = choose_oracle(kernel, shape, manifest.gate, oracles);
    m.seed = seed + i * 1000;
    // An empty shape ("allow_empty") is checked only: an empty launch has nothing to time.
    m.time = options.time && !shape.allow_empty;
    if (options.time && shape.allow_empty)
      progress(kernel.name + " / " + shape.name +
               ": an empty shape (\"allow_empty\"): checked against the reference, not timed");
    m.warmup = kernel.timing.warmup;
    m.min_samples = kernel.timing.samples;
    m.max_samples = kernel.timing.samples;
    m.budget_s = kernel.timing.time_limit_s;
    m.time_limit_s = kernel.timing.time_limit_s;
    report.shapes.push_back(measure_shape(m));
  }
  return report;
}

}  // namespace kgate
