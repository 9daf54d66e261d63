#include "runner/timing_loop.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "runner/phase_marker.h"
#include "runner/timing_schedule.h"

namespace kgate {
namespace {

// One input copy: the buffers both sides read, and a pristine device copy of
// each in/out buffer to restore before every launch.
struct InputCopy {
  Buffers buffers;
  std::vector<DeviceAddress> pristine;          // per argument; 0 unless in/out
  std::vector<ArgSlot> head_slots, base_slots;  // each side's parameters on these buffers
};

size_t inout_bytes(const LaunchPlan& plan) {
  size_t total = 0;
  for (const ArgPlan& a : plan.args)
    if (a.buffer() && a.arg->role == ArgRole::kInOut) total += a.bytes;
  return total;
}

int copies_for(const LaunchPlan& plan, const DeviceInfo& device, int max_samples) {
  return input_copies(plan.total_bytes() + inout_bytes(plan), device.l2_bytes, max_samples);
}

Status restore(Device& device, const LaunchPlan& plan, const InputCopy& copy) {
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (copy.pristine[i])
      KGATE_RETURN_IF_ERROR(
          device.copy(copy.buffers.addresses[i], copy.pristine[i], plan.args[i].bytes));
  return {};
}

}  // namespace

TimingOutcome time_interleaved(const MeasureRequest& r, Device& device, Allocations& owned,
                               const TimingSetup& setup, ShapeMeasurement& m) {
  using Fault = TimingOutcome::Fault;
  const LaunchPlan& plan = *setup.plan;
  const bool ab = setup.base.kernel != nullptr;
  auto harness_error = [](const Error& e) { return TimingOutcome{Fault::kHarness, e.message}; };

  phase_marker("timing setup");
  const int copies = copies_for(plan, m.device, r.max_samples);
  m.input_copies = copies;
  std::vector<InputCopy> sets(copies);
  for (int c = 0; c < copies; ++c) {
    // The first copy times on the checked inputs (already drawn, and kept on
    // the device where staged); the others are drawn afresh on the device
    // (Device::draw: a GPU draws in place).
    const StagedInputs* staged = c == 0 ? setup.first_staged : nullptr;
    if (c == 0) {
      sets[c].buffers = *setup.first_copy;
      if (auto s = prepare_buffers(device, plan, sets[c].buffers, *setup.first_inputs, kPoisonByte,
                                   staged);
          !s.ok())
        return harness_error(s.error());
    } else {
      auto b = allocate_buffers(device, plan, owned, /*guarded=*/false);
      if (!b.ok()) return harness_error(b.error());
      sets[c].buffers = std::move(b.value());
      for (size_t i = 0; i < plan.args.size(); ++i) {
        const ArgPlan& a = plan.args[i];
        if (!a.buffer() || a.bytes == 0) continue;
        Status s = a.poisoned() ? device.fill(sets[c].buffers.addresses[i], kPoisonByte, a.bytes)
                                : put_input(device, sets[c].buffers.addresses[i], a,
                                            r.seed + 100 + c, i, plan.variables);
        if (!s.ok()) return harness_error(s.error());
      }
    }
    sets[c].pristine.assign(plan.args.size(), 0);
    for (size_t i = 0; i < plan.args.size(); ++i) {
      const ArgPlan& a = plan.args[i];
      if (!a.buffer() || a.arg->role != ArgRole::kInOut) continue;
      auto p = device.allocate(a.bytes);
      if (!p.ok()) return harness_error(p.error());
      owned.add(*p);
      // The in/out buffer still holds its inputs: nothing has run on it yet.
      if (auto s = device.copy(*p, sets[c].buffers.addresses[i], a.bytes); !s.ok())
        return harness_error(s.error());
      sets[c].pristine[i] = *p;
    }
    sets[c].head_slots = param_slots(plan, sets[c].buffers.addresses);
    if (ab)
      sets[c].base_slots =
          param_slots(setup.base_plan ? *setup.base_plan : plan, sets[c].buffers.addresses);
  }

  auto side = [&](bool is_head) -> const TimedKernel& { return is_head ? setup.head : setup.base; };
  auto fault = [&](bool is_head, const char* when, const Error& e) {
    return TimingOutcome{
        is_head ? Fault::kHead : Fault::kBase,
        std::string(is_head ? "head" : "base") + " failed " + when + ": " + e.message};
  };
  // The order of one round: head alone, or the schedule's pair.
  auto order = [&](int round) {
    RoundPlan p = round_plan(round, copies);
    std::vector<bool> sides = {true};
    if (ab) sides = {p.head_first, !p.head_first};
    return std::make_pair(p.copy, sides);
  };

  for (int w = 0; w < r.warmup; ++w) {
    auto [copy, sides] = order(w);
    for (bool is_head : sides) {
      phase_marker(is_head ? "head warmup" : "base warmup");
      if (auto s = restore(device, plan, sets[copy]); !s.ok()) return harness_error(s.error());
      const TimedKernel& k = side(is_head);
      const auto& slots = is_head ? sets[copy].head_slots : sets[copy].base_slots;
      if (auto s = device.launch(*k.kernel, k.dims, slots); !s.ok())
        return fault(is_head, "during warm-up", s.error());
    }
  }

  auto start = std::chrono::steady_clock::now();
  const int period = ab ? schedule_period(copies) : 1;
  bool stopping = false;
  for (int round = 0; round < r.max_samples; ++round) {
    auto [copy, sides] = order(round);
    for (bool is_head : sides) {
      phase_marker(is_head ? "head timing" : "base timing");
      if (auto s = restore(device, plan, sets[copy]); !s.ok()) return harness_error(s.error());
      const TimedKernel& k = side(is_head);
      const auto& slots = is_head ? sets[copy].head_slots : sets[copy].base_slots;
      auto sample = device.time_launch(*k.kernel, k.dims, slots);
      if (!sample.ok()) return fault(is_head, "while timed", sample.error());
      (is_head ? m.head_seconds : m.base_seconds).push_back(sample->seconds);
      if (sample->sm_clock_mhz > 0) {
        (is_head ? m.head_clock_mhz : m.base_clock_mhz).push_back(sample->sm_clock_mhz);
        if (m.device.peak_sm_clock_mhz > 0 &&
            sample->sm_clock_mhz < 0.9 * m.device.peak_sm_clock_mhz)
          ++m.throttled_samples;
      }
    }
    int n = round + 1;
    if (!stopping && n >= r.min_samples) {
      double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      // Every 5 rounds: coprime with every period, so the pause a look takes
      // precedes either side's first sample alike.
      stopping = elapsed > r.budget_s ||
                 (r.enough && n % 5 == 0 && r.enough(m.head_seconds, m.base_seconds));
    }
    // Stop on a whole period of the schedule, so each side went first as often.
    if (stopping && n % period == 0) break;
  }
  return {};
}

}  // namespace kgate
