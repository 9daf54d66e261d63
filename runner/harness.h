#pragma once
// Checks and times one kernel on one shape on a Device, in this process.
// Use measure_shape (isolated_measure.h) to run it in a child process.
//
// Order of work, each step on fresh data: check the head against the
// reference (seed), run it again on the same inputs and compare (races),
// check the base if given, time head and base interleaved (the schedule in
// timing_schedule.h) over rotated input copies, then check the head again on
// new inputs (seed + 1) so results reused between calls are caught. Every
// correctness run is under the memory rules (checked_run.h: guard zones,
// inputs unchanged).
//
// Each side runs as its revision declares it: the base is planned from the
// base's manifest entry (its args, its launch, its tunables), the head from
// the head's. The base is timed only when the two plans take the same inputs
// (side_compatibility.h); both then run on the same device buffers.
#include <functional>
#include <vector>

#include "core/manifest.h"
#include "runner/backend.h"
#include "runner/measurement.h"
#include "runner/oracle.h"
#include "runner/program.h"
#include "runner/reference_cache.h"

namespace kgate {

// Decides, from the samples so far, that timing may stop (the gate's
// adaptive rule). Called every few rounds.
using EnoughSamples =
    std::function<bool(const std::vector<double>& head, const std::vector<double>& base)>;

struct MeasureRequest {
  const Kernel* kernel = nullptr;
  const Implementation* impl = nullptr;
  const Shape* shape = nullptr;
  Backend* backend = nullptr;
  int gpu = 0;
  // Already open (one device context for many measurements in one process,
  // as bench/ does); null: opened here from backend and gpu.
  Device* device = nullptr;
  const Program* head = nullptr;
  const Program* base = nullptr;  // null: no A/B, head alone
  // The base revision's own manifest entry (kgate gate); base_kernel null:
  // the base is planned from kernel, impl and shape (an episode's current
  // best, an A/A). With base_kernel set, base_shape null means the base has
  // no shape of this name.
  const Kernel* base_kernel = nullptr;
  const Implementation* base_impl = nullptr;
  const Shape* base_shape = nullptr;
  const Program* reference = nullptr;
  uint64_t seed = 1;
  // Kept reference sets for {seed, seed + 1} on this shape (measure_shape
  // fills it from reference_cache); null: drawn and computed here.
  std::shared_ptr<const ReferenceSets> reference_sets;
  ReferenceCache* reference_cache = nullptr;  // null: nothing kept between calls
  // Host reference outputs on disk, across processes; null: not used.
  const ReferenceStore* reference_store = nullptr;
  // What judges head (runner/oracle.h). kDeviceReference needs
  // device_reference, kBase a base; otherwise the host reference judges.
  OracleKind oracle = OracleKind::kHostReference;
  // The kernel's reference kernel for this backend, compiled. With the host
  // reference as oracle it is checked against the host reference.
  const Program* device_reference = nullptr;

  bool time = true;         // false: correctness only
  bool guard_zones = true;  // false: exact allocations (under compute-sanitizer)
  int warmup = 5;
  int min_samples = 10;      // per program
  int max_samples = 30;      // per program
  double budget_s = 5.0;     // wall time for the timing loop
  EnoughSamples enough;      // null: stop at max_samples
  double time_limit_s = 60;  // the child is killed past this (a hang)
};

// Runs the steps above; `phase_marker` names each step on stderr so a crash
// can be attributed by the parent.
ShapeMeasurement measure_in_process(const MeasureRequest& request);

}  // namespace kgate
