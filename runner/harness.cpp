#include "runner/harness.h"

#include <optional>
#include <string>

#include "runner/checked_run.h"
#include "runner/device_buffers.h"
#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_floor.h"
#include "runner/launch_plan.h"
#include "runner/oracle.h"
#include "runner/phase_marker.h"
#include "runner/reference.h"
#include "runner/side_compatibility.h"
#include "runner/staged_inputs.h"
#include "runner/timing_loop.h"

namespace kgate {
namespace {

// One measure_in_process call: the steps in harness.h, each a method that
// returns false when the measurement ends there (m says why).
// Invariant after plan_sides: base_plan is set exactly when the base is
// measured (given, comparable, loaded); both sides then share `buffers`.
class Measurement {
 public:
  explicit Measurement(const MeasureRequest& r) : r_(r) {
    m.kernel = r.kernel->name;
    m.shape = r.shape->name;
    m.phase = r.shape->phase;
    m.backend = r.backend->name();
    m.seed = r.seed;
  }

  ShapeMeasurement run() {
    PhaseTimes times(m.kernel + " " + m.shape);
    if (!open_device() || !plan_sides() || !load()) return m;
    Allocations owned(*device_);
    owned_ = &owned;
    if (!allocate() || !prepare()) return m;
    if (!check_head() || !repeat_head() || !check_oracle() || !check_base()) return m;
    if (r_.time && !time()) return m;
    if (!check_after()) return m;
    m.status = MeasureStatus::kPass;
    return m;
  }

  ShapeMeasurement m;

 private:
  bool error(const std::string& why) {
    m.status = MeasureStatus::kError;
    m.reason = why;
    return false;
  }
  bool fail(const std::string& why) {
    m.status = MeasureStatus::kFail;
    m.reason = why;
    return false;
  }
  // The base failed in a way that may leave the device unusable (a launch
  // error on a GPU): the measurement ends here; measure_shape checks the
  // head again alone, in a fresh process.
  bool base_failed(const std::string& why) {
    m.base_failure = why;
    return error(why);
  }
  // The base failed in a way that leaves the device usable: the head goes on alone.
  void drop_base(std::string why, bool failure) {
    (failure ? m.base_failure : m.base_not_compared) = std::move(why);
    base_plan_.reset();
    base_.reset();
  }

  bool open_device() {
    if (r_.device) {
      device_ = r_.device;
    } else {
      phase_marker("open device");
      auto opened = r_.backend->open_device(r_.gpu);
      if (!opened.ok()) return error(opened.error().message);
      opened_ = std::move(opened.value());
      device_ = opened_.get();
    }
    m.device = device_->info();
    return true;
  }

  // The head from the head's entry, the base from its own (base_kernel) or
  // the head's; the base is dropped, with the reason, when the two do not
  // take the same inputs on this shape.
  bool plan_sides() {
    auto head = plan_launch(*r_.kernel, r_.impl, *r_.shape, r_.head->tunables);
    if (!head.ok()) return error(head.error().message);
    head_plan_ = std::move(head.value());
    m.bytes_moved = head_plan_->traffic_bytes();
    if (!r_.base) return true;
    const Kernel& kernel = r_.base_kernel ? *r_.base_kernel : *r_.kernel;
    const Implementation* impl = r_.base_kernel ? r_.base_impl : r_.impl;
    const Shape* shape = r_.base_kernel ? r_.base_shape : r_.shape;
    if (std::string why = shape_difference(*r_.shape, shape); !why.empty()) {
      drop_base(why, false);
      return true;
    }
    if (!impl) {
      drop_base("the base has no \"" + r_.backend->name() + "\" implementation", false);
      return true;
    }
    auto base = plan_launch(kernel, impl, *shape, r_.base->tunables);
    if (!base.ok()) {
      drop_base("the base's kgate.json does not plan this shape: " + base.error().message, false);
      return true;
    }
    AlignedSides sides;
    if (std::string why = align_sides(*head_plan_, *base, sides); !why.empty()) {
      drop_base(why, false);
      return true;
    }
    head_plan_ = std::move(sides.head);
    base_plan_ = std::move(sides.base);
    return true;
  }

  bool load() {
    phase_marker("load reference");
    auto reference = HostLibrary::open(r_.reference->artifact);
    if (!reference.ok()) return error(reference.error().message);
    reference_ = std::move(reference.value());
    if (r_.device_reference) {
      auto loaded = device_->load(*r_.device_reference);
      if (!loaded.ok())
        return error("the reference kernel does not load: " + loaded.error().message);
      device_reference_ = std::move(loaded.value());
      if (r_.kernel->reference.cuda) {
        auto plan = plan_launch(*r_.kernel, &*r_.kernel->reference.cuda, *r_.shape, {});
        if (!plan.ok()) return error(plan.error().message);
        reference_dims_ = plan->dims;
      }
    }
    phase_marker("load head");
    auto head = device_->load(*r_.head);
    if (!head.ok()) return fail("head does not load: " + head.error().message);
    head_ = std::move(head.value());
    if (base_plan_) {
      phase_marker("base load");
      auto base = device_->load(*r_.base);
      if (!base.ok())
        drop_base("the base does not load: " + base.error().message, true);
      else
        base_ = std::move(base.value());
    }
    return true;
  }

  // Both input sets (this check's and the check after timing) and what the
  // oracle makes of them, at once (host references side by side on threads).
  // The base judges only when it is measured (given, comparable, loaded).
  bool prepare() {
    phase_marker("inputs and reference");
    oracle_.kind = base_ || r_.oracle != OracleKind::kBase ? r_.oracle : OracleKind::kHostReference;
    if (oracle_.kind == OracleKind::kBase && !base_judges_every_output())
      oracle_.kind = OracleKind::kHostReference;
    if (oracle_.kind == OracleKind::kDeviceReference && !device_reference_)
      oracle_.kind = OracleKind::kHostReference;
    oracle_.plan = &*head_plan_;
    oracle_.seed = r_.seed;
    oracle_.host_reference = reference_.get();
    oracle_.kept = r_.reference_sets;
    if (r_.reference_store) oracle_.stored = {r_.reference_store, r_.reference->cache_key};
    oracle_.device = device_;
    oracle_.device_reference = device_reference_.get();
    oracle_.reference_dims = reference_dims_;
    oracle_.run_base = [this](const HostData& inputs, size_t set) -> Result<HostData> {
      phase_marker("base as oracle");
      auto run = checked_run(*device_, *base_, *base_plan_, buffers_, inputs, kPoisonByte,
                             oracle_.staged_set(set));
      if (!run.ok()) return run.error();
      if (!run->violation.empty())
        return Error::bad_input("the base " + run->violation + "; the base cannot judge");
      return std::move(run->outputs);  // indexed by the shared leaves, as the head's
    };
    // A set the host reference does not judge is drawn where the kernel
    // runs: on a GPU, no host drawing and no upload (staged_inputs.h).
    oracle_.draw_set = [this](uint64_t seed, size_t set) -> Result<HostData> {
      HostData host;
      auto drawn = draw_inputs(*device_, *head_plan_, seed, *owned_, host);
      if (staged_.size() <= set) staged_.resize(set + 1);
      if (!drawn.ok()) return make_inputs(*head_plan_, seed);  // no room: the host path
      staged_[set] = std::move(drawn.value());
      return host;
    };
    oracle_.staged_set = [this](size_t set) -> const StagedInputs* {
      if (set >= staged_.size() || !staged_[set] || staged_[set]->copies.empty()) return nullptr;
      return &*staged_[set];
    };
    m.oracle = oracle_.kind == OracleKind::kDeviceReference
                   ? r_.device_reference->backend + " reference"
                   : std::string(to_string(oracle_.kind));
    auto prepared = prepare_oracle(oracle_);
    if (!prepared.ok()) return error(prepared.error().message);
    sets_ = std::move(prepared.value());
    judged_ = oracle_tolerance_factor(oracle_.kind);
    return true;
  }

  // One set of (guarded) buffers that every correctness run uses, the base's
  // too: comparable plans need the same bytes.
  bool allocate() {
    auto b = allocate_buffers(*device_, *head_plan_, *owned_, r_.guard_zones);
    if (!b.ok()) return error(b.error().message);
    buffers_ = std::move(b.value());
    return true;
  }

  const HostData& inputs(int set) const { return (*sets_)[set].inputs; }

  // The set's inputs kept on the device (staged_inputs.h), staged on first
  // use; nullptr (the host path) where the device has no room for them.
  const StagedInputs* staged(const HostData& set) {
    if (!sets_) return nullptr;  // the base as oracle runs while the sets are being made
    for (size_t i = 0; i < sets_->size(); ++i) {
      if (&(*sets_)[i].inputs != &set) continue;
      if (staged_.size() <= i) staged_.resize(sets_->size());
      if (!staged_[i]) {
        auto s = stage_inputs(*device_, *head_plan_, set, *owned_);
        staged_[i] = s.ok() ? std::optional<StagedInputs>(std::move(s.value()))
                            : std::optional<StagedInputs>(StagedInputs{});
      }
      return staged_[i]->copies.empty() ? nullptr : &*staged_[i];
    }
    return nullptr;
  }

  bool check_head() {
    phase_marker("head check");
    auto run = checked_run(*device_, *head_, *head_plan_, buffers_, inputs(0), kPoisonByte,
                           staged(inputs(0)));
    if (!run.ok()) return fail("head failed to run: " + run.error().message);
    if (!run->violation.empty()) return fail(run->violation);
    m.check = compare_outputs(*head_plan_, run->outputs, (*sets_)[0].expected, judged_);
    m.check.seed = r_.seed;
    if (!m.check.passed) {
      auto reads = output_read_before_written(*device_, *head_, *head_plan_, buffers_, inputs(0),
                                              run->outputs, staged(inputs(0)));
      if (reads.ok() && !reads->empty()) return fail(*reads);
      return fail("wrong result: " + m.check.reason);
    }
    first_outputs_ = std::move(run->outputs);
    return true;
  }

  bool repeat_head() {
    phase_marker("head repeat");
    auto run = checked_run(*device_, *head_, *head_plan_, buffers_, inputs(0), kPoisonByte,
                           staged(inputs(0)));
    if (!run.ok()) return fail("head failed on its second run: " + run.error().message);
    if (!run->violation.empty()) return fail(run->violation + " (on its second run)");
    m.repeat = compare_runs(*head_plan_, first_outputs_, run->outputs);
    m.repeat.seed = r_.seed;
    if (!m.repeat.passed) return fail(m.repeat.reason);
    return true;
  }

  // A shape small enough for both references: the reference kernel must
  // agree with the host's, or nothing it judges can be trusted.
  bool check_oracle() {
    if (oracle_.kind != OracleKind::kHostReference || !device_reference_) return true;
    phase_marker("reference kernel check");
    auto agreed = check_device_reference(oracle_, (*sets_)[0]);
    if (!agreed.ok()) return error(agreed.error().message);
    m.oracle_check = *agreed;
    if (!agreed->passed)
      return error("the reference kernel disagrees with the host reference: " + agreed->reason);
    return true;
  }

  // The base against the head's oracle, on the same inputs: reported, and
  // a base that breaks a memory rule is not timed. A base that is the
  // oracle was run by prepare().
  bool check_base() {
    if (!base_ || oracle_.kind == OracleKind::kBase) return true;
    phase_marker("base check");
    auto run = checked_run(*device_, *base_, *base_plan_, buffers_, inputs(0), kPoisonByte,
                           staged(inputs(0)));
    if (!run.ok()) return base_failed("the base failed to run: " + run.error().message);
    if (!run->violation.empty()) {
      drop_base("the base " + run->violation, true);
      return true;
    }
    m.base_check = compare_outputs(*base_plan_, run->outputs, (*sets_)[0].expected);
    m.base_check->seed = r_.seed;
    if (!m.base_check->passed) {
      auto reads = output_read_before_written(*device_, *base_, *base_plan_, buffers_, inputs(0),
                                              run->outputs, staged(inputs(0)));
      if (!reads.ok()) return base_failed("the base failed to run: " + reads.error().message);
      if (!reads->empty()) drop_base("the base " + *reads, true);
    }
    return true;
  }

  bool time() {
    TimingSetup setup;
    setup.plan = &*head_plan_;
    setup.head = {head_.get(), head_plan_->dims};
    if (base_) {
      setup.base = {base_.get(), base_plan_->dims};
      setup.base_plan = &*base_plan_;
    }
    setup.first_copy = &buffers_;
    setup.first_inputs = &inputs(0);
    setup.first_staged = staged(inputs(0));
    TimingOutcome t = time_interleaved(r_, *device_, *owned_, setup, m);
    switch (t.fault) {
      case TimingOutcome::Fault::kNone:
        phase_marker("launch floor");
        m.launch_floor_s = measure_launch_floor(*device_);
        return true;
      case TimingOutcome::Fault::kHead:
        return fail(t.message);
      case TimingOutcome::Fault::kBase:
        return base_failed("the base " + t.message.substr(5));
      case TimingOutcome::Fault::kHarness:
        return error(t.message);
    }
    return true;
  }

  // Checked again after timing, on new inputs: results reused between calls fail here.
  bool check_after() {
    phase_marker("head check after timing");
    auto run = checked_run(*device_, *head_, *head_plan_, buffers_, inputs(1), kPoisonByte,
                           staged(inputs(1)));
    if (!run.ok()) return fail("head failed to run after timing: " + run.error().message);
    if (!run->violation.empty()) return fail(run->violation + " (on new inputs after timing)");
    m.check_after = compare_outputs(*head_plan_, run->outputs, (*sets_)[1].expected, judged_);
    m.check_after.seed = r_.seed + 1;
    if (!m.check_after.passed)
      return fail("wrong result on new inputs after timing: " + m.check_after.reason);
    return true;
  }

  // The base can stand in for the reference only where it writes every
  // output the head is checked on.
  bool base_judges_every_output() const {
    if (!base_plan_) return false;
    for (size_t i = 0; i < head_plan_->args.size(); ++i)
      if (head_plan_->args[i].compared() && !base_plan_->args[i].compared()) return false;
    return true;
  }

  const MeasureRequest& r_;
  std::unique_ptr<Device> opened_;
  Device* device_ = nullptr;
  Allocations* owned_ = nullptr;
  std::optional<LaunchPlan> head_plan_, base_plan_;
  std::unique_ptr<HostLibrary> reference_;
  std::unique_ptr<LoadedKernel> device_reference_;
  LaunchDims reference_dims_;
  std::unique_ptr<LoadedKernel> head_, base_;
  OracleSources oracle_;
  double judged_ = 1;  // the factor on each output's tolerance against the oracle
  std::shared_ptr<const ReferenceSets> sets_;
  Buffers buffers_;
  std::vector<std::optional<StagedInputs>> staged_;  // per input set; empty copies: none
  HostData first_outputs_;
};

}  // namespace

ShapeMeasurement measure_in_process(const MeasureRequest& request) {
  Measurement measurement(request);
  return measurement.run();
}

}  // namespace kgate
