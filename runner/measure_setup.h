#pragma once
// What every caller of measure_shape (runner/isolated_measure.h) prepares
// the same way: the implementation compiled, the kernel's references built
// (the host reference, and the reference kernel where the manifest has one),
// the seed, and the request fields that do not depend on the caller. Used by
// `kgate run` (runner/kernel_run.h), the gate (gate/ab_gate.h) and its A/A
// calibration (gate/calibration.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "core/manifest.h"
#include "core/status.h"
#include "runner/backend.h"
#include "runner/harness.h"
#include "runner/oracle_choice.h"
#include "runner/program.h"

namespace kgate {

// Compiles `impl` of `kernel` from files under `root`; `source_text`
// replaces the source file (a candidate), `tunables` set -D values. An
// Error is infrastructure; a compiler's refusal is ok == false.
Result<CompileOutcome> compile_implementation(
    const Kernel& kernel, const Implementation& impl, Backend& backend,
    const std::filesystem::path& root, const std::optional<std::string>& source_text = std::nullopt,
    const Variables& tunables = {});

// Invariant: host is a compiled host reference.
struct KernelReferences {
  Program host;                   // outputs as double*
  std::optional<Program> device;  // the manifest's reference kernel for the backend
  // What can judge a shape before any base is checked.
  OracleState oracles() const;
};

// A bad-input Error naming the reference source when the host reference
// does not compile.
Result<KernelReferences> build_references(const Kernel& kernel, const std::filesystem::path& root,
                                          Backend& backend);

// `seed`, or one drawn from the clock when it is 0.
uint64_t seed_or_clock(uint64_t seed);

// The request for `kernel.shapes[index]` with the fields every caller sets
// alike: kernel, implementation, shape, backend, GPU, head, references, the
// shape's seed (seed + index * 1000) and warmup. The caller sets the base,
// the oracle and the timing.
MeasureRequest shape_request(const Kernel& kernel, const Implementation& impl, size_t index,
                             Backend& backend, int gpu, const Program& head,
                             const KernelReferences& references, uint64_t seed);

}  // namespace kgate
