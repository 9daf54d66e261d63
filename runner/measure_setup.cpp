#include "runner/measure_setup.h"

#include <chrono>

#include "runner/reference.h"

namespace kgate {

Result<CompileOutcome> compile_implementation(const Kernel& kernel, const Implementation& impl,
                                              Backend& backend, const std::filesystem::path& root,
                                              const std::optional<std::string>& source_text,
                                              const Variables& tunables) {
  CompileRequest request;
  request.kernel = &kernel;
  request.impl = &impl;
  request.root = root;
  request.source_text = source_text;
  request.tunables = tunables;
  return backend.compile(request);
}

OracleState KernelReferences::oracles() const {
  OracleState state;
  state.device_reference = device.has_value();
  return state;
}

Result<KernelReferences> build_references(const Kernel& kernel, const std::filesystem::path& root,
                                          Backend& backend) {
  auto reference = build_reference(kernel, root);
  if (!reference.ok()) return reference.error();
  if (!reference->ok)
    return Error::bad_input("the reference of " + kernel.name + " (" + kernel.reference.source +
                            ") does not compile:\n" + reference->digest());
  // Large shapes are judged by the reference kernel where there is one
  // (runner/oracle_choice.h), small ones by the host reference, checking it.
  auto device_reference = build_device_reference(kernel, root, backend);
  if (!device_reference.ok()) return device_reference.error();
  KernelReferences references;
  references.host = reference->program;
  references.device = std::move(device_reference.value());
  return references;
}

uint64_t seed_or_clock(uint64_t seed) {
  return seed ? seed
              : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
}

MeasureRequest shape_request(const Kernel& kernel, const Implementation& impl, size_t index,
                             Backend& backend, int gpu, const Program& head,
                             const KernelReferences& references, uint64_t seed) {
  MeasureRequest m;
  m.kernel = &kernel;
  m.impl = &impl;
  m.shape = &kernel.shapes[index];
  m.backend = &backend;
  m.gpu = gpu;
  m.head = &head;
  m.reference = &references.host;
  m.device_reference = references.device ? &*references.device : nullptr;
  m.seed = seed + index * 1000;
  m.warmup = kernel.timing.warmup;
  return m;
}

}  // namespace kgate
