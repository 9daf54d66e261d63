#pragma once
// The model of a kernel repository's kgate.json. See docs/manifest.md for the
// file format and docs/kgate.schema.json for its JSON Schema.
//
// Invariants after a successful load (manifest_loader.h): kernel and shape
// names are unique; every expression parses and evaluates without error for
// every shape with each tunable at its default (first) value; the defaults
// meet every constraint; every buffer count is positive (zero allowed on
// shapes with allow_empty); every float scalar naming a variable finds it in every
// shape; every kernel has at least one output and a reference.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/dtype.h"
#include "core/expression.h"
#include "core/status.h"

namespace kgate {

// kScratch: a workspace the kernel may use; poisoned before each run, its
// contents afterwards are neither compared nor read back.
enum class ArgRole { kInput, kOutput, kInOut, kScratch };

// One element of a buffer with given contents: a number (float buffers) or
// an integer expression over the shape's variables.
struct GivenValue {
  bool is_number = false;
  double number = 0;
  Expression expression = Expression::constant(0);
};

// How an input buffer is filled. Drawn inputs are never zeros: zeros hide
// unwritten outputs. Given contents (kValues, kFormula) are what the kernel's
// contract needs (a descriptor of dims and strides, offsets, indices).
struct InitSpec {
  enum class Distribution { kNormal, kUniform, kRandInt, kValues, kFormula };
  // What a drawn value goes through before it is stored (cos and sin of one
  // shared angle, a positive scale).
  enum class Apply { kNone, kCos, kSin, kExp, kAbs };
  Distribution distribution = Distribution::kNormal;
  double mean = 0.0, stddev = 1.0;                  // normal
  double low = -1.0, high = 1.0;                    // uniform
  Expression int_low = Expression::constant(0);     // randint, inclusive
  Expression int_high = Expression::constant(100);  // randint, exclusive
  bool sorted = false;                              // randint: ascending
  std::vector<GivenValue> values;                   // kValues: element i is values[i]
  // kFormula: element i is formula(i) * scale, an integer expression over
  // the shape's variables, the tunables, the kernel's lets and `i`.
  Expression formula = Expression::constant(0);
  double scale = 1.0;
  // Buffers naming the same `share` draw the same values (a key from the
  // name, not from the argument's position): cos and sin of one angle.
  std::string share;
  Apply apply = Apply::kNone;

  // Drawn on the GPU as on the host (input_formula.h); given contents and
  // sorted draws are made on the host.
  bool device_drawable() const {
    return distribution != Distribution::kValues && distribution != Distribution::kFormula &&
           !sorted;
  }
};

// When an output passes: |out - ref| <= atol + rtol * |ref|, or within `ulp`
// units in the last place of the output's type at |ref|, or (scale_rel > 0)
// within scale_rel times the largest |ref| of that output. NaN never passes.
struct Tolerance {
  double atol = 1e-3;
  double rtol = 1e-3;
  double ulp = 0;        // 0: off
  double scale_rel = 0;  // 0: off
};

struct Arg {
  std::string name;  // a struct's fields: "params.ncols"
  DType dtype = DType::kFloat32;
  bool is_buffer = false;  // "T*" in the manifest
  // Buffers:
  ArgRole role = ArgRole::kInput;
  Expression count = Expression::constant(1);
  InitSpec init;
  // Passed as NULL on the shapes where this is non-zero ("null": true, or an
  // expression over the shape's variables); such a buffer has no elements.
  std::optional<Expression> null_when;
  // Only this side of a change has it (docs/manifest.md, "Changing a
  // kernel's parameters"): the other side's kernel does not take it.
  bool one_sided = false;
  // Outputs: the kernel's tolerance with these fields replaced.
  std::optional<Tolerance> tolerance;
  // Scalars: integer types take an expression, float types a number or the
  // name of a shape variable (float_variable, non-empty: the value is the
  // shape's, Shape::number).
  Expression int_value = Expression::constant(0);
  double float_value = 0.0;
  std::string float_variable;
  // A struct passed by value ("type": "struct"): its fields in order (each a
  // scalar, a buffer or a struct), laid out as the C compiler lays them out.
  bool is_struct = false;
  std::vector<Arg> fields;
  // A scalar the reference takes but the kernel does not (a row count the
  // kernel reads from its grid): planned and passed to the reference only.
  bool reference_only = false;
  int64_t align = 0;      // a struct's alignment when it says one (__align__(16)); 0: its fields'
  std::string json_path;  // "kernels[0].args[2]", for messages
};

struct LaunchSpec {
  std::vector<Expression> grid;   // 1 to 3 dimensions
  std::vector<Expression> block;  // 1 to 3 dimensions
  Expression shared_bytes = Expression::constant(0);
};

struct CompileSpec {
  std::string compiler;  // cuda: "nvrtc" (default) or "nvcc"; host: the C++ compiler
  std::vector<std::string> flags;
  std::vector<std::string> include;  // folders, relative to the manifest's folder
  bool allow_fast_math = false;      // numerics-changing flags are refused unless set
};

struct Tunable {
  std::string name;
  std::vector<int64_t> values;  // values.front() is the default
  std::string role;             // core/tunable_role.h; empty: none declared
};

// A condition every setting of the tunables must meet ("BM % TM == 0"): an
// expression over the implementation's tunables, true when non-zero.
struct TunableConstraint {
  Expression expression;
  std::string json_path;  // "kernels[0].impl.cuda.constraints[1]"
};

// One way to build the kernel: for the GPU ("cuda") or the CPU ("host").
struct Implementation {
  std::string backend;  // "cuda" or "host"
  std::string source;   // relative to the manifest's folder
  std::string entry;    // function name
  CompileSpec compile;
  LaunchSpec launch;  // cuda only
  std::vector<Tunable> tunables;
  std::vector<TunableConstraint> constraints;
  std::string json_path;
  // The other implementations of the manifest built from the same source
  // with the same compile section and backend: one compile of the file
  // serves all whose macros agree (runner/cuda/cuda_compiler.cpp).
  struct Sibling {
    std::string entry;
    Variables tunables;  // its defaults
  };
  std::vector<Sibling> siblings;

  Variables default_tunables() const;
  // The first constraint `tunables` (defaults filling the rest) violates, or
  // that fails to evaluate, as an error naming it; ok when all hold.
  Status check_constraints(const Variables& tunables) const;
};

// What a shape's timing may do to the gate (docs/manifest.md, "Timing"):
// decide it, only be shown, or not be measured at all. Correctness is
// checked on every shape whatever its timing.
enum class ShapeTiming {
  kGate,    // timed; a slowdown beyond the policy fails the gate (the default)
  kReport,  // timed and reported; never fails the gate nor counts as a gain
  kOff,     // checked for correctness only, not timed
};
std::string_view to_string(ShapeTiming timing);
std::optional<ShapeTiming> shape_timing_from_string(std::string_view text);

struct Shape {
  std::string name;
  std::string phase;    // "decode", "prefill", "edge", or any word
  Variables variables;  // every integer field of the shape
  // Every non-integer number field ("eps": 1e-6): read by float scalars
  // only, never by the integer expressions (counts, launch, int scalars).
  std::map<std::string, double> float_variables;
  std::vector<std::string> backends;  // empty: every backend
  // As written on the shape; nullopt: the gate's default for its phase
  // (GatePolicy::timing_of).
  std::optional<ShapeTiming> timing;
  // "allow_empty": true: counts and launch dimensions may evaluate to 0 (a
  // GEMM with K = 0) for a kernel that handles it; such a shape is checked,
  // never timed (docs/manifest.md, "Empty dimensions").
  bool allow_empty = false;
  std::string json_path;

  bool runs_on(std::string_view backend) const;
  // The variable `name` as a number, float or integer; nullopt if absent.
  std::optional<double> number(const std::string& name) const;
};

struct Reference {
  std::string source;  // host C++, relative to the manifest's folder
  std::string entry;   // outputs as double*, inputs and scalars as the kernel's
  // A reference kernel for the cuda backend with the host reference's
  // parameter list (outputs as double*), launched with its own "launch"
  // (expressions over shape variables only): large shapes are judged on the
  // GPU instead of by the host reference (docs/manifest.md, "The reference").
  std::optional<Implementation> cuda;
};

struct TimingSpec {
  int warmup = 5;            // launches before the first sample
  int samples = 30;          // samples per shape for `kgate run`
  double time_limit_s = 60;  // a run of one shape past this is a hang
};

struct GatePolicy {
  double max_regression = 0.03;   // slower than this (ratio - 1) fails the gate
  double min_improvement = 0.03;  // faster than this is reported as faster
  double confidence = 0.99;       // of the interval on the ratio of medians
  double budget_s = 1.0;          // GPU time per kernel-shape for a verdict
  double resolution = 0.01;       // changes smaller than this count as no change
  // Changes of the median smaller than this, in seconds, count as no change
  // whatever their ratio (a 1x1 shape at the timer's floor); < 0: the
  // backend's timer floor (Backend::timer_floor_s).
  double min_change_s = -1;
  // compute-sanitizer tools ("memcheck", "racecheck", "initcheck",
  // "synccheck") run on the head's correctness check of every gated shape
  // (cuda backend); empty: none.
  std::vector<std::string> sanitize;
  // Timing of shapes that say nothing themselves, by phase ("edge":
  // kReport); phases not named here gate.
  std::map<std::string, ShapeTiming> timing_by_phase;
  // The launch-floor rule (docs/gate.md): a slowdown is reported, not
  // failing, when both medians are within launch_floor_factor times the
  // empty launch measured beside them and the shape moves at most
  // launch_floor_max_bytes. launch_floor_factor 0 turns the rule off.
  double launch_floor_factor = 2.0;
  int64_t launch_floor_max_bytes = 4096;
  // What judges head's outputs on shapes too large for the host reference
  // (more than host_reference_max_elements buffer elements): kReference
  // (the cuda reference where there is one, else the host reference) or
  // kBase (the base revision's outputs). Smaller shapes are always judged
  // by the host reference, and check the other oracles.
  enum class Oracle { kReference, kBase };
  Oracle oracle = Oracle::kReference;
  int64_t host_reference_max_elements = int64_t{1} << 22;

  // The shape's own timing, else its phase's, else kGate.
  ShapeTiming timing_of(const Shape& shape) const;
};
std::string_view to_string(GatePolicy::Oracle oracle);

// A named value derived from the shape's variables and the tunables ("let":
// {"block": "cols < 1024 ? 32 : 1024"}), which the kernel's expressions may
// read like a variable.
struct LetValue {
  std::string name;
  Expression expression;
  std::string json_path;
};

struct Kernel {
  std::string name;
  std::string family;  // for the experience store; defaults to the name
  std::vector<Implementation> implementations;
  std::vector<Arg> args;       // the kernel's parameters, in order
  std::vector<LetValue> lets;  // in an order where each reads only those before it
  std::vector<Shape> shapes;
  Reference reference;
  Tolerance tolerance;
  TimingSpec timing;
  std::string json_path;
  nlohmann::json raw;  // the kernel's JSON as written, to detect changes

  const Implementation* implementation(std::string_view backend) const;
  const Shape* shape(std::string_view name) const;
  // Shape variables, tunables and the lets: what expressions of this kernel
  // may read. An Error when a let does not evaluate (division by zero).
  Result<Variables> variables(const Shape& shape, const Variables& tunables) const;
  // Every scalar and buffer the kernel takes, struct fields in their place:
  // what the reference's parameter list has, in order.
  std::vector<const Arg*> leaves() const;
};

struct Manifest {
  std::filesystem::path path;  // as given by the user
  std::filesystem::path root;  // folder the relative paths start from
  std::vector<Kernel> kernels;
  GatePolicy gate;
  nlohmann::json workload;  // null when absent

  const Kernel* kernel(std::string_view name) const;
};

}  // namespace kgate
