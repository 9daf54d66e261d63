#pragma once
// Gates one kernel: compile base and head, check head on every shape, time
// both interleaved (A/B) with adaptive sampling, and decide per shape.
// Used by `kgate gate` (base and head from git revisions), `kgate calibrate`
// (A/A) and optimization episodes (current best vs candidate, no git).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"
#include "runner/backend.h"
#include "runner/compare.h"
#include "runner/measurement.h"
#include "runner/reference_cache.h"

namespace kgate {

// One side of the comparison. Fields left empty fall back to the manifest's
// kernel: its entry, its folder, its source file, its default tunables.
struct GateSide {
  const Kernel* kernel = nullptr;  // this side's manifest entry (null: the head kernel)
  std::filesystem::path root;      // folder its relative paths start from (empty: manifest.root)
  std::optional<std::string>
      source_text;                 // replaces the implementation's source file (a candidate)
  Variables tunables;              // -D values; missing names take their defaults
  std::optional<Program> program;  // already compiled: used as is
};

struct GateSources {
  std::optional<GateSide> base;  // nullopt: no base (a new kernel), correctness only
  GateSide head;
};

struct GateOptions {
  std::optional<GatePolicy> policy;  // nullopt: the manifest's "gate" section
  std::string shape;                 // empty: every shape the backend runs
  uint64_t seed = 0;                 // 0: drawn from the clock (recorded)
  int gpu = 0;
  int min_samples = 20;       // rounds before the first look
  int max_samples = 1000000;  // rounds; the budget normally ends timing first
  bool time = true;           // false: correctness only
  // Keeps inputs and reference outputs between gates of the same shapes and
  // seed (an episode's candidates); null: each gate draws its own.
  ReferenceCache* reference_cache = nullptr;
  // compute-sanitizer tools run on the head's check of each shape
  // (gate/gate_sanitizer.h); nullopt: the policy's "sanitize".
  std::optional<std::vector<std::string>> sanitize;
  std::filesystem::path kgate_executable;  // runs the sanitized check; empty: this program
  // Host reference outputs on disk, for seeds that repeat (an episode's, a
  // --seed); null: not used.
  const ReferenceStore* reference_store = nullptr;
};

// Head's latest stored baseline on this shape, beside the A/B result.
struct BaselineComparison {
  double median_s = 0, p10_s = 0, p90_s = 0;  // the stored baseline
  double ratio = 1;                           // head median / stored median
  bool within_band = true;                    // head median inside [p10, p90]
  std::string recorded;                       // the baseline entry's date
  nlohmann::json to_json() const;
  static BaselineComparison from_json(const nlohmann::json& j);
};

struct ShapeGate {
  std::string shape, phase;
  Verdict verdict = Verdict::kError;
  bool fails = false;  // this shape fails the gate
  // A "slower" verdict a maintainer accepted (`kgate gate --accept-regression`):
  // it no longer fails, and stays visible as accepted in every report.
  bool accepted_regression = false;
  std::string reason;  // why it is incorrect / errored / failed, or why a change does not count
  // The shape's timing role (GatePolicy::timing_of), and whether its change
  // counts as a gain or a loss (false: report-only, not timed, or both sides
  // at the launch floor; gate/shape_decision.h).
  ShapeTiming timing = ShapeTiming::kGate;
  bool counts = true;
  double launch_floor_s = 0;  // the empty launch measured beside the samples
  // What judged head's outputs ("host reference", "cuda reference", "base"),
  // with why the policy's choice could not judge, where it could not.
  std::string oracle;
  RatioInterval interval;  // head / base at the policy's confidence
  double base_median_s = 0, head_median_s = 0;
  double head_p10_s = 0, head_p90_s = 0;
  int rounds = 0;             // interleaved pairs timed
  double timing_seconds = 0;  // wall time spent measuring this shape
  int throttled_samples = 0;
  double sm_clock_mhz = 0;  // median SM clock over both sides' samples; 0 where unknown
  CheckReport check;        // head against the reference
  // The base on this shape: its check against the head's oracle (when it
  // ran), and what a reader must know about it ("the base is itself
  // incorrect on this shape: ...", "the base failed to run: ..."); empty when
  // nothing is wrong with it.
  std::optional<CheckReport> base_check;
  std::string base_note;
  std::optional<BaselineComparison> baseline;
  // Kept in memory only (not in JSON): the raw samples, for baselines.
  std::vector<double> head_seconds, base_seconds;

  nlohmann::json to_json() const;
  static ShapeGate from_json(const nlohmann::json& j);
};

// Invariant: when a side failed to compile, shapes is empty and passed() is
// false for head (a base that does not compile turns the kernel into "new").
struct KernelGate {
  std::string kernel, backend;
  std::string source;   // head's implementation source, relative to the manifest folder
  int source_line = 1;  // line of the entry function in it, for annotations
  std::string why;      // why it was gated ("host/rmsnorm.cpp changed")
  GatePolicy policy;
  bool head_compiled = false, base_compiled = false;
  std::string head_compile_error, base_compile_error;
  // What changed between the revisions' shape lists ("head drops shapes a, b
  // of the base"), for every report.
  std::vector<std::string> notes;
  std::vector<ShapeGate> shapes;
  DeviceInfo device;
  uint64_t seed = 0;

  bool passed() const;
  // The worst verdict over shapes (incorrect > error > slower > inconclusive > new > same >
  // faster).
  Verdict overall() const;
  nlohmann::json to_json() const;
  static KernelGate from_json(const nlohmann::json& j);
};

// An Error only for bad input (no implementation for the backend, unknown
// shape, a reference that does not build) or infrastructure; a head that does
// not compile or is wrong is a failed KernelGate.
Result<KernelGate> gate_kernel(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                               const GateSources& sources, const GateOptions& options);

}  // namespace kgate
