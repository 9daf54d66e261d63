#include "runner/harness.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>

#include "runner/host/host_library.h"
#include "runner/inputs.h"
#include "runner/launch_floor.h"
#include "runner/launch_plan.h"
#include "runner/oracle.h"
#include "runner/reference.h"

namespace kgate {
namespace {

// Where each step's wall time goes when KGATE_PHASE_TIMES names a file:
// one line per finished step ("KERNEL SHAPE STEP SECONDS"), appended, to see
// what a gate spends its time on.
struct PhaseClock {
  std::FILE* file = nullptr;
  std::string label, phase;
  std::chrono::steady_clock::time_point since;
  ~PhaseClock() {
    finish();
    if (file) std::fclose(file);
  }
  void finish() {
    if (file && !phase.empty())
      std::fprintf(file, "%s %s %.4f\n", label.c_str(), phase.c_str(),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count());
    if (file) std::fflush(file);
    phase.clear();
  }
};
PhaseClock* phase_clock = nullptr;

// Tells the parent which step runs, so a crash is attributed (isolated_measure.cpp).
void phase_marker(const char* phase) {
  std::fprintf(stderr, "kgate-phase: %s\n", phase);
  std::fflush(stderr);
  if (phase_clock && phase_clock->file && phase_clock->phase != phase) {
    phase_clock->finish();
    phase_clock->phase = phase;
    phase_clock->since = std::chrono::steady_clock::now();
  }
}

struct Buffers {
  std::vector<DeviceAddress> addresses;  // 0 for scalars
  std::vector<ArgSlot> slots;
};

// Releases every buffer a measurement allocated, so a device shared by many
// measurements (MeasureRequest::device) does not fill up.
class Allocations {
 public:
  explicit Allocations(Device& device) : device_(device) {}
  ~Allocations() {
    for (DeviceAddress a : addresses_) device_.release(a);
  }
  Allocations(const Allocations&) = delete;
  Allocations& operator=(const Allocations&) = delete;
  void add(DeviceAddress a) { addresses_.push_back(a); }

 private:
  Device& device_;
  std::vector<DeviceAddress> addresses_;
};

Result<Buffers> allocate(Device& device, const LaunchPlan& plan, Allocations& owned) {
  Buffers b;
  for (const ArgPlan& a : plan.args) {
    if (a.arg->is_buffer) {
      auto address = device.allocate(a.bytes);
      if (!address.ok()) return address.error();
      owned.add(*address);
      b.addresses.push_back(*address);
      ArgSlot slot;
      std::memcpy(slot.bytes, &*address, 8);
      slot.size = 8;
      b.slots.push_back(slot);
    } else {
      b.addresses.push_back(0);
      b.slots.push_back(a.scalar);
    }
  }
  return b;
}

// Uploads inputs and poisons outputs.
Status prepare(Device& device, const LaunchPlan& plan, const Buffers& buffers,
               const HostData& inputs) {
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer) continue;
    if (a.arg->role == ArgRole::kOutput) {
      KGATE_RETURN_IF_ERROR(device.fill(buffers.addresses[i], kPoisonByte, a.bytes));
    } else {
      KGATE_RETURN_IF_ERROR(device.upload(buffers.addresses[i], inputs[i].data(), a.bytes));
    }
  }
  return {};
}

Result<HostData> read_outputs(Device& device, const LaunchPlan& plan, const Buffers& buffers) {
  HostData out(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (!a.arg->is_buffer || a.arg->role == ArgRole::kInput) continue;
    out[i].resize(a.bytes);
    KGATE_RETURN_IF_ERROR(device.download(out[i].data(), buffers.addresses[i], a.bytes));
  }
  return out;
}

Result<HostData> run_once(Device& device, LoadedKernel& kernel, const LaunchPlan& plan,
                          const Buffers& buffers, const HostData& inputs) {
  KGATE_RETURN_IF_ERROR(prepare(device, plan, buffers, inputs));
  KGATE_RETURN_IF_ERROR(device.launch(kernel, plan.dims, buffers.slots));
  return read_outputs(device, plan, buffers);
}

}  // namespace

ShapeMeasurement measure_in_process(const MeasureRequest& r) {
  ShapeMeasurement m;
  m.kernel = r.kernel->name;
  m.shape = r.shape->name;
  m.phase = r.shape->phase;
  m.backend = r.backend->name();
  m.seed = r.seed;
  PhaseClock clock;
  if (const char* path = std::getenv("KGATE_PHASE_TIMES"); path && *path) {
    clock.file = std::fopen(path, "a");
    clock.label = m.kernel + " " + m.shape;
  }
  phase_clock = &clock;
  struct Reset {
    ~Reset() { phase_clock = nullptr; }
  } reset;
  auto error = [&](const std::string& why) {
    m.status = MeasureStatus::kError;
    m.reason = why;
    return m;
  };
  auto fail = [&](const std::string& why) {
    m.status = MeasureStatus::kFail;
    m.reason = why;
    return m;
  };

  std::unique_ptr<Device> opened;
  if (!r.device) {
    phase_marker("open device");
    auto device_or = r.backend->open_device(r.gpu);
    if (!device_or.ok()) return error(device_or.error().message);
    opened = std::move(device_or.value());
  }
  Device& device = r.device ? *r.device : *opened;
  m.device = device.info();

  auto head_plan = plan_launch(*r.kernel, r.impl, *r.shape, r.head->tunables);
  if (!head_plan.ok()) return error(head_plan.error().message);
  std::optional<LaunchPlan> base_plan;
  if (r.base) {
    auto plan = plan_launch(*r.kernel, r.impl, *r.shape, r.base->tunables);
    if (!plan.ok()) return error(plan.error().message);
    base_plan = std::move(plan.value());
  }
  m.bytes_moved = head_plan->traffic_bytes();

  phase_marker("load reference");
  auto reference = HostLibrary::open(r.reference->artifact);
  if (!reference.ok()) return error(reference.error().message);
  std::unique_ptr<LoadedKernel> device_reference;
  LaunchDims reference_dims;
  if (r.device_reference) {
    auto loaded = device.load(*r.device_reference);
    if (!loaded.ok()) return error("the reference kernel does not load: " + loaded.error().message);
    device_reference = std::move(loaded.value());
    if (r.kernel->reference.cuda) {
      auto plan = plan_launch(*r.kernel, &*r.kernel->reference.cuda, *r.shape, {});
      if (!plan.ok()) return error(plan.error().message);
      reference_dims = plan->dims;
    }
  }
  phase_marker("load head");
  auto head = device.load(*r.head);
  if (!head.ok()) return fail("head does not load: " + head.error().message);
  std::unique_ptr<LoadedKernel> base;
  if (r.base) {
    phase_marker("load base");
    auto loaded = device.load(*r.base);
    if (!loaded.ok()) return error("base does not load: " + loaded.error().message);
    base = std::move(loaded.value());
  }

  Allocations owned(device);
  auto head_buffers = allocate(device, *head_plan, owned);
  if (!head_buffers.ok()) return error(head_buffers.error().message);
  std::optional<Buffers> base_buffers;
  if (r.base) {
    auto b = allocate(device, *base_plan, owned);
    if (!b.ok()) return error(b.error().message);
    base_buffers = std::move(b.value());
  }

  // Correctness on fresh inputs, then the same inputs again.
  const Tolerance& tol = r.kernel->tolerance;
  // Both input sets (this check's and the check after timing) and what the
  // oracle makes of them, at once (host references side by side on threads).
  phase_marker("inputs and reference");
  OracleSources oracle;
  oracle.kind = r.base || r.oracle != OracleKind::kBase ? r.oracle : OracleKind::kHostReference;
  if (oracle.kind == OracleKind::kDeviceReference && !device_reference)
    oracle.kind = OracleKind::kHostReference;
  oracle.plan = &*head_plan;
  oracle.seed = r.seed;
  oracle.host_reference = reference->get();
  oracle.kept = r.reference_sets;
  if (r.reference_store) oracle.stored = {r.reference_store, r.reference->cache_key};
  oracle.device = &device;
  oracle.device_reference = device_reference.get();
  oracle.reference_dims = reference_dims;
  oracle.run_base = [&](const HostData& inputs) -> Result<HostData> {
    phase_marker("base as oracle");
    for (size_t i = 0; i < head_plan->args.size(); ++i)
      if (head_plan->args[i].bytes != base_plan->args[i].bytes)
        return Error::bad_input("base and head buffers differ in size; the base cannot judge");
    return run_once(device, *base, *base_plan, *base_buffers, inputs);
  };
  m.oracle = oracle.kind == OracleKind::kDeviceReference
                 ? r.device_reference->backend + " reference"
                 : std::string(to_string(oracle.kind));
  auto prepared = prepare_oracle(oracle);
  if (!prepared.ok()) return error(prepared.error().message);
  const ReferenceSets& sets = **prepared;
  const Tolerance judged = oracle_tolerance(oracle.kind, tol);
  const HostData& inputs = sets[0].inputs;
  const auto& expected = sets[0].expected;
  phase_marker("head check");
  auto first = run_once(device, **head, *head_plan, *head_buffers, inputs);
  if (!first.ok()) return fail("head failed to run: " + first.error().message);
  m.check = compare_outputs(*head_plan, *first, expected, judged);
  m.check.seed = r.seed;
  if (!m.check.passed) return fail("wrong result: " + m.check.reason);
  phase_marker("head repeat");
  auto second = run_once(device, **head, *head_plan, *head_buffers, inputs);
  if (!second.ok()) return fail("head failed on its second run: " + second.error().message);
  m.repeat = compare_runs(*head_plan, *first, *second, tol);
  m.repeat.seed = r.seed;
  if (!m.repeat.passed) return fail(m.repeat.reason);
  if (oracle.kind == OracleKind::kHostReference && device_reference) {
    // A shape small enough for both references: the reference kernel must
    // agree with the host's, or nothing it judges can be trusted.
    phase_marker("reference kernel check");
    auto agreed = check_device_reference(oracle, sets[0], tol);
    if (!agreed.ok()) return error(agreed.error().message);
    m.oracle_check = *agreed;
    if (!agreed->passed)
      return error("the reference kernel disagrees with the host reference: " + agreed->reason);
  }
  if (r.base && oracle.kind != OracleKind::kBase) {
    phase_marker("base check");
    auto out = run_once(device, *base, *base_plan, *base_buffers, inputs);
    if (!out.ok()) return error("base failed to run: " + out.error().message);
    m.base_check = compare_outputs(*base_plan, *out, expected, tol);
  }

  if (r.time) {
    // Rotate input copies so repeated samples do not read warm caches.
    size_t cache_bytes =
        m.device.l2_bytes > 0 ? static_cast<size_t>(m.device.l2_bytes) : (8u << 20);
    size_t per_copy = std::max<size_t>(head_plan->total_bytes(), 1);
    int copies = static_cast<int>(std::clamp<size_t>(2 * cache_bytes / per_copy + 1, 1, 4));
    if (per_copy * copies * (r.base ? 2 : 1) > (size_t{4} << 30)) copies = 1;
    m.input_copies = copies;
    std::vector<Buffers> head_sets = {*head_buffers}, base_sets;
    if (r.base) base_sets.push_back(*base_buffers);
    for (int c = 1; c < copies; ++c) {
      auto h = allocate(device, *head_plan, owned);
      if (!h.ok()) return error(h.error().message);
      head_sets.push_back(*h);
      if (r.base) {
        auto b = allocate(device, *base_plan, owned);
        if (!b.ok()) return error(b.error().message);
        base_sets.push_back(*b);
      }
    }
    phase_marker("timing setup");
    for (int c = 0; c < copies; ++c) {
      // The first copy times on the checked inputs (already drawn: for a
      // large shape, the only copy); the others are drawn afresh.
      HostData fresh;
      if (c > 0) fresh = make_inputs(*head_plan, r.seed + 100 + c);
      const HostData& data = c == 0 ? inputs : fresh;
      if (auto s = prepare(device, *head_plan, head_sets[c], data); !s.ok())
        return error(s.error().message);
      if (r.base)
        if (auto s = prepare(device, *base_plan, base_sets[c], data); !s.ok())
          return error(s.error().message);
    }
    phase_marker("head warmup");
    for (int w = 0; w < r.warmup; ++w) {
      if (auto s = device.launch(**head, head_plan->dims, head_sets[w % copies].slots); !s.ok())
        return fail("head failed during warm-up: " + s.error().message);
      if (r.base) {
        phase_marker("base warmup");
        if (auto s = device.launch(*base, base_plan->dims, base_sets[w % copies].slots); !s.ok())
          return error("base failed during warm-up: " + s.error().message);
        phase_marker("head warmup");
      }
    }
    auto start = std::chrono::steady_clock::now();
    auto take = [&](bool is_head, int round) -> Status {
      phase_marker(is_head ? "head timing" : "base timing");
      auto sample =
          is_head ? device.time_launch(**head, head_plan->dims, head_sets[round % copies].slots)
                  : device.time_launch(*base, base_plan->dims, base_sets[round % copies].slots);
      if (!sample.ok()) return sample.error();
      (is_head ? m.head_seconds : m.base_seconds).push_back(sample->seconds);
      if (sample->sm_clock_mhz > 0) {
        (is_head ? m.head_clock_mhz : m.base_clock_mhz).push_back(sample->sm_clock_mhz);
        if (m.device.peak_sm_clock_mhz > 0 &&
            sample->sm_clock_mhz < 0.9 * m.device.peak_sm_clock_mhz)
          ++m.throttled_samples;
      }
      return {};
    };
    for (int round = 0; round < r.max_samples; ++round) {
      // Alternate the order so drift and cache effects hit both alike.
      bool head_first = round % 2 == 0;
      for (int k = 0; k < (r.base ? 2 : 1); ++k) {
        bool is_head = !r.base || (k == 0) == head_first;
        if (auto s = take(is_head, round); !s.ok())
          return is_head ? fail("head failed while timed: " + s.error().message)
                         : error("base failed while timed: " + s.error().message);
      }
      int n = round + 1;
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (n >= r.min_samples) {
        if (elapsed > r.budget_s) break;
        if (r.enough && n % 5 == 0 && r.enough(m.head_seconds, m.base_seconds)) break;
      }
    }
    phase_marker("launch floor");
    m.launch_floor_s = measure_launch_floor(device);
  }

  // Checked again after timing, on new inputs: results reused between calls fail here.
  phase_marker("head check after timing");
  auto after = run_once(device, **head, *head_plan, *head_buffers, sets[1].inputs);
  if (!after.ok()) return fail("head failed to run after timing: " + after.error().message);
  m.check_after = compare_outputs(*head_plan, *after, sets[1].expected, judged);
  m.check_after.seed = r.seed + 1;
  if (!m.check_after.passed)
    return fail("wrong result on new inputs after timing: " + m.check_after.reason);

  m.status = MeasureStatus::kPass;
  return m;
}

}  // namespace kgate
