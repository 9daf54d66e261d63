#include "agent/ab_evaluator.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

#include "agent/candidate_rules.h"
#include "core/log.h"
#include "gate/shape_decision.h"
#include "runner/isolated_measure.h"
#include "runner/reference.h"

namespace kgate {

std::pair<double, double> ratio_interval(const std::vector<double>& head,
                                         const std::vector<double>& base, double confidence,
                                         int resamples, uint64_t seed) {
  if (head.empty() || base.empty()) return {0, 0};
  std::mt19937_64 rng(seed);
  std::vector<double> ratios;
  ratios.reserve(resamples);
  std::vector<double> h(head.size()), b(base.size());
  std::uniform_int_distribution<size_t> pick_h(0, head.size() - 1), pick_b(0, base.size() - 1);
  for (int r = 0; r < resamples; ++r) {
    for (double& x : h) x = head[pick_h(rng)];
    for (double& x : b) x = base[pick_b(rng)];
    double mb = median(b);
    if (mb > 0) ratios.push_back(median(h) / mb);
  }
  if (ratios.empty()) return {0, 0};
  std::sort(ratios.begin(), ratios.end());
  double tail = (1 - confidence) / 2;
  auto at = [&](double q) {
    size_t i =
        static_cast<size_t>(std::clamp(q * (ratios.size() - 1), 0.0, double(ratios.size() - 1)));
    return ratios[i];
  };
  return {at(tail), at(1 - tail)};
}

bool AbOptions::selects(const Shape& shape) const {
  auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  return has(shapes, shape.name) && has(phases, shape.phase);
}

AbEvaluator::AbEvaluator(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                         AbOptions options)
    : manifest_(manifest),
      kernel_(kernel),
      backend_(backend),
      impl_(kernel.implementation(backend.name())),
      options_(std::move(options)),
      compiler_(manifest, kernel, backend),
      // A hang on a derived shape is judged by the manifest's limit, as the gate's are.
      misaligned_(manifest, kernel, backend, options_.seed, options_.misaligned_shapes,
                  kernel.timing.time_limit_s) {}

Status AbEvaluator::ensure_reference() {
  if (reference_) return {};
  auto ref = build_reference(kernel_, manifest_.root);
  if (!ref.ok()) return ref.error();
  if (!ref->ok)
    return Error::bad_input("the reference of " + kernel_.name + " does not compile:\n" +
                            ref->digest());
  reference_ = ref->program;
  return {};
}

Result<Evaluation> AbEvaluator::run(const Candidate* best, const Candidate& head) {
  Evaluation e;
  e.engine = "measure_shape A/B (median ratio, bootstrap interval)";
  auto compiled_head = compiler_.compile(head);
  if (!compiled_head.ok()) return compiled_head.error();
  if (!compiled_head->ok) {
    e.refused = compiled_head->refused;
    e.compile_digest = compiled_head->digest;
    e.summary = e.refused ? "refused: " + e.compile_digest : "does not compile";
    return e;
  }
  e.compiled = true;
  e.resources = compiled_head->program.resources;
  Program head_program = compiled_head->program;
  std::optional<Program> best_program;
  std::optional<CompiledCandidate> compiled_best;
  if (best) {
    auto c = compiler_.compile(*best);
    if (!c.ok()) return c.error();
    if (!c->ok)
      return Error::bad_input("the current best of " + kernel_.name + " no longer compiles:\n" +
                              c->digest);
    compiled_best = *c;
    best_program = c->program;
  }
  // Each side with its own launch where it carries one (candidate_launch.h).
  const std::optional<Kernel> head_kernel = kernel_for(kernel_, backend_.name(), head);
  const std::optional<Kernel> best_kernel =
      best ? kernel_for(kernel_, backend_.name(), *best) : std::nullopt;
  auto rejected =
      reject_before_timing(*compiled_head, head, compiled_best ? &*compiled_best : nullptr,
                           misaligned_, e, head_kernel ? &*head_kernel : nullptr);
  if (!rejected.ok()) return rejected.error();
  if (*rejected) return e;
  KGATE_RETURN_IF_ERROR(ensure_reference());

  const GatePolicy policy = with_timer_floor(manifest_.gate, backend_.timer_floor_s());
  ++round_;
  e.correct = true;
  double log_sum = 0;
  int timed = 0;
  bool any_faster = false, any_slower = false;
  for (size_t i = 0; i < kernel_.shapes.size(); ++i) {
    const Shape& shape = kernel_.shapes[i];
    if (!shape.runs_on(backend_.name())) continue;
    if (!options_.selects(shape)) continue;
    ShapeTimingFacts facts = timing_facts(shape, policy);
    MeasureRequest m;
    m.kernel = head_kernel ? &*head_kernel : &kernel_;
    m.impl = m.kernel->implementation(backend_.name());
    m.shape = &shape;
    m.backend = &backend_;
    m.head = &head_program;
    m.base = best_program ? &*best_program : nullptr;
    if (best_kernel) {
      m.base_kernel = &*best_kernel;
      m.base_impl = best_kernel->implementation(backend_.name());
      m.base_shape = best_kernel->shape(shape.name);
    }
    m.reference = &*reference_;
    m.seed = options_.seed * 1000003 + round_ * 7919 + i * 101;
    m.warmup = kernel_.timing.warmup;
    m.min_samples = options_.min_samples;
    m.max_samples = options_.max_samples;
    m.budget_s = options_.budget_s;
    m.time_limit_s = options_.time_limit_s;
    m.time = facts.timing != ShapeTiming::kOff;
    ShapeMeasurement r = measure_shape(m);
    if (!r.device.name.empty()) e.device = r.device.to_json();

    ShapeEvaluation s;
    s.shape = shape.name;
    s.phase = shape.phase;
    s.max_abs_error = r.check.max_abs_error;
    s.max_rel_error = r.check.max_rel_error;
    s.bytes_moved = r.bytes_moved;
    s.samples = static_cast<int>(r.head_seconds.size());
    if (r.status != MeasureStatus::kPass) {
      s.verdict = r.status == MeasureStatus::kFail ? ShapeVerdict::kWrong : ShapeVerdict::kError;
      s.reason = r.reason;
      e.correct = false;
      e.shapes.push_back(s);
      continue;
    }
    s.candidate_s = r.head_median();
    if (facts.timing == ShapeTiming::kOff) {
      s.candidate_s = 0;  // not timed
      s.verdict = ShapeVerdict::kChecked;
      s.counts = false;
      s.ratio = s.ratio_lo = s.ratio_hi = 1;
      s.reason = timing_label(facts.timing, facts.timing_why);
      e.shapes.push_back(s);
      continue;
    }
    // No best, or a best that failed on this shape (the harness then checks
    // the candidate alone): nothing to compare with.
    if (!best_program || r.base_seconds.empty()) {
      if (!r.base_failure.empty()) s.reason = "the current best fails here: " + r.base_failure;
      s.best_s = s.candidate_s;
      s.ratio = s.ratio_lo = s.ratio_hi = 1;
      s.verdict = ShapeVerdict::kSame;
      e.shapes.push_back(s);
      continue;
    }
    s.best_s = r.base_median();
    s.ratio = s.best_s > 0 ? s.candidate_s / s.best_s : 1;
    auto [lo, hi] = ratio_interval(r.head_seconds, r.base_seconds, policy.confidence,
                                   options_.bootstrap_resamples, m.seed);
    s.ratio_lo = lo;
    s.ratio_hi = hi;
    // The gate's own rules on this interval (verdict.h), the timer's floor included.
    RatioInterval interval;
    interval.estimate = s.ratio, interval.low = lo, interval.high = hi;
    interval.pairs = static_cast<int>(std::min(r.head_seconds.size(), r.base_seconds.size()));
    facts.base_median_s = s.best_s;
    facts.head_median_s = s.candidate_s;
    facts.launch_floor_s = r.launch_floor_s;
    facts.bytes_moved = r.bytes_moved;
    const ShapeDecision d = decide_shape(interval, policy, facts);
    s.verdict = to_shape_verdict(d.verdict);
    s.reason = d.note;
    s.counts = d.counts;
    any_faster |= d.verdict == Verdict::kFaster && d.counts;
    any_slower |= d.fails;
    if (s.ratio > 0 && d.counts) {
      log_sum += std::log(s.ratio);
      ++timed;
    }
    e.shapes.push_back(s);
  }
  e.geomean_ratio = timed ? std::exp(log_sum / timed) : 1;
  if (!e.correct) {
    for (const ShapeEvaluation& s : e.shapes)
      if (s.verdict == ShapeVerdict::kWrong || s.verdict == ShapeVerdict::kError) {
        e.summary = "rejected: " + s.shape + ": " + s.reason;
        break;
      }
    return e;
  }
  if (!best_program) {
    e.summary = "baseline timed on " + std::to_string(e.shapes.size()) + " shapes";
    return e;
  }
  e.conclude(any_faster, any_slower, policy.min_improvement);
  return e;
}

Result<Evaluation> AbEvaluator::evaluate(const Candidate& best, const Candidate& candidate) {
  return run(&best, candidate);
}

Result<Evaluation> AbEvaluator::baseline(const Candidate& best) {
  return run(nullptr, best);
}

}  // namespace kgate
