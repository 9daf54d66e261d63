#include "agent/gate_evaluator.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "agent/candidate_rules.h"
#include "gate/ab_gate.h"

namespace kgate {

GateEvaluator::GateEvaluator(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                             AbOptions options)
    : manifest_(manifest),
      kernel_(kernel),
      backend_(backend),
      options_(std::move(options)),
      compiler_(manifest, kernel, backend),
      // A hang on a derived shape is judged by the manifest's limit, as the gate's are.
      misaligned_(manifest, kernel, backend, options_.seed, options_.misaligned_shapes,
                  kernel.timing.time_limit_s) {}

Result<Evaluation> GateEvaluator::run(const Candidate* best, const Candidate& head,
                                      bool fresh_inputs) {
  Evaluation e;
  e.engine = "gate (paired ratio interval, adaptive A/B)";
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
  std::optional<CompiledCandidate> compiled_best;
  if (best) {
    auto c = compiler_.compile(*best);
    if (!c.ok()) return c.error();
    if (!c->ok)
      return Error::bad_input("the current best of " + kernel_.name + " no longer compiles:\n" +
                              c->digest);
    compiled_best = *c;
  }
  // Each side with its own launch where it carries one (candidate_launch.h).
  const std::optional<Kernel> head_kernel = kernel_for(kernel_, backend_.name(), head);
  const std::optional<Kernel> best_kernel =
      best ? kernel_for(kernel_, backend_.name(), *best) : std::nullopt;
  // The final gate (fresh inputs) is of a best that passed these already.
  if (!fresh_inputs) {
    auto rejected =
        reject_before_timing(*compiled_head, head, compiled_best ? &*compiled_best : nullptr,
                             misaligned_, e, head_kernel ? &*head_kernel : nullptr);
    if (!rejected.ok()) return rejected.error();
    if (*rejected) return e;
  }
  GateSources sources;
  sources.head.kernel = head_kernel ? &*head_kernel : &kernel_;
  sources.head.source_text = head.source_text;
  sources.head.tunables = head.tunables;
  sources.head.program = compiled_head->program;
  if (best) {
    GateSide base;
    base.kernel = best_kernel ? &*best_kernel : &kernel_;
    base.source_text = best->source_text;
    base.tunables = best->tunables;
    base.program = compiled_best->program;
    sources.base = base;
  }
  GatePolicy policy = manifest_.gate;
  policy.budget_s = options_.budget_s;
  GateOptions go;
  go.policy = policy;
  ++round_;
  go.seed = options_.seed * 1000003 + (fresh_inputs ? round_ * 7919 : 0) + 1;
  go.reference_cache = fresh_inputs ? nullptr : &references_;
  // The search's seeds repeat across episodes of the same options: their
  // slow references are worth keeping on disk.
  go.reference_store = fresh_inputs ? nullptr : &store_;
  go.min_samples = options_.min_samples;
  go.max_samples = options_.max_samples;
  std::vector<std::string> shapes;
  if (options_.shapes.empty() && options_.phases.empty()) {
    shapes.push_back("");  // every shape in one call
  } else {
    for (const Shape& s : kernel_.shapes)
      if (options_.selects(s) && s.runs_on(backend_.name())) shapes.push_back(s.name);
    if (shapes.empty())
      return Error::bad_input(kernel_.name + " has no shape that --shapes/--phases select");
  }

  const Implementation* impl = kernel_.implementation(backend_.name());
  e.correct = true;
  double log_sum = 0;
  int timed = 0;
  bool any_faster = false, any_fail = false;
  for (const std::string& shape : shapes) {
    go.shape = shape;
    auto gate = gate_kernel(manifest_, *sources.head.kernel, backend_, sources, go);
    if (!gate.ok()) return gate.error();
    if (!gate->head_compiled) {
      e.compiled = false;
      e.compile_digest = gate->head_compile_error;
      e.summary = "does not compile";
      return e;
    }
    if (!gate->device.name.empty()) e.device = gate->device.to_json();
    for (const ShapeGate& g : gate->shapes) {
      ShapeEvaluation s;
      s.shape = g.shape;
      s.phase = g.phase;
      s.verdict = to_shape_verdict(g.verdict);
      s.reason = g.reason;
      s.counts = g.counts;
      // An untimed shape has no median (NaN): 0 says "not timed" in JSON too.
      auto time_or_zero = [](double seconds) { return std::isfinite(seconds) ? seconds : 0.0; };
      s.candidate_s = time_or_zero(g.head_median_s);
      s.best_s = time_or_zero(best ? g.base_median_s : g.head_median_s);
      s.max_abs_error = g.check.max_abs_error;
      s.max_rel_error = g.check.max_rel_error;
      s.samples = g.rounds > 0 ? g.rounds : static_cast<int>(g.head_seconds.size());
      if (const Shape* sh = kernel_.shape(g.shape))
        s.bytes_moved = shape_bytes(kernel_, impl, *sh, head.tunables);
      if (g.verdict == Verdict::kIncorrect || g.verdict == Verdict::kError) {
        e.correct = false;
      } else if (g.verdict == Verdict::kChecked) {
        s.ratio = s.ratio_lo = s.ratio_hi = 1;  // correct, not timed
      } else if (best) {
        s.ratio = g.interval.estimate;
        s.ratio_lo = g.interval.low;
        s.ratio_hi = g.interval.high;
        // The gate's own rule for what counts (gate/shape_decision.h):
        // report-only shapes and shapes at the launch floor neither win nor lose.
        any_faster |= g.verdict == Verdict::kFaster && g.counts;
        any_fail |= g.fails;
        if (s.ratio > 0 && g.counts) {
          log_sum += std::log(s.ratio);
          ++timed;
        }
      } else {
        s.ratio = s.ratio_lo = s.ratio_hi = 1;
      }
      e.shapes.push_back(s);
    }
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
  if (!best) {
    e.summary = "baseline timed on " + std::to_string(e.shapes.size()) + " shapes";
    return e;
  }
  // Kept only when the gate would pass it as a change of its own: no shape
  // breaks the policy, some shape is significantly faster, and the geomean
  // clears min_improvement.
  e.conclude(any_faster, any_fail, manifest_.gate.min_improvement);
  return e;
}

Result<Evaluation> GateEvaluator::evaluate(const Candidate& best, const Candidate& candidate) {
  return run(&best, candidate);
}

Result<Evaluation> GateEvaluator::baseline(const Candidate& best) {
  return run(nullptr, best);
}

Result<Evaluation> GateEvaluator::confirm(const Candidate& original, const Candidate& best) {
  return run(&original, best, /*fresh_inputs=*/true);
}

}  // namespace kgate
