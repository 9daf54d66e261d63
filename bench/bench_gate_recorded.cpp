// Decision rules on recorded timings of real kernels (this machine's backend,
// host when there is no GPU). Records `runs` A/A gates per shape (the same
// program as base and head, timed interleaved to the full budget), then
// replays them: as recorded (A/A) and with head's samples multiplied by 1.02,
// 1.05 and 1.10 (planted slowdowns). kgate's rule replays its adaptive
// stopping on the sequence; the simpler rules are (a) the median of 20 head
// samples against a stored baseline's P10–P90 band (the baseline being the
// first 20 samples of the previous run) and (b) a single head sample against
// that baseline's median with a fixed 5% threshold.
// Usage: bench_gate_recorded MANIFEST KERNEL SHAPE [runs] [budget_s]
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/log.h"
#include "core/manifest_loader.h"
#include "gate/ab_gate.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"
#include "runner/backend.h"

using namespace kgate;

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s MANIFEST KERNEL SHAPE [runs] [budget_s]\n", argv[0]);
    return 2;
  }
  int runs = argc > 4 ? std::atoi(argv[4]) : 100;
  double budget = argc > 5 ? std::atof(argv[5]) : 0.3;
  set_quiet(true);
  auto manifest = load_manifest(argv[1]);
  if (!manifest.ok()) return std::fprintf(stderr, "%s\n", manifest.error().message.c_str()), 2;
  const Kernel* kernel = manifest->kernel(argv[2]);
  if (!kernel) return std::fprintf(stderr, "no kernel %s\n", argv[2]), 2;
  auto backend = make_backend(default_backend_name());
  const Implementation* impl = kernel->implementation((*backend)->name());
  CompileRequest request{kernel, impl, manifest->root};
  auto compiled = (*backend)->compile(request);
  if (!compiled.ok() || !compiled->ok) return std::fprintf(stderr, "does not compile\n"), 3;

  GatePolicy policy = manifest->gate;
  GatePolicy recording = policy;
  recording.budget_s = budget;
  recording.resolution = 0;  // never stop early for "same": record the whole budget
  GateSources sources;
  sources.head.program = compiled->program;
  sources.base = sources.head;
  GateOptions options;
  options.policy = recording;
  options.shape = argv[3];
  std::vector<std::pair<std::vector<double>, std::vector<double>>> recorded;
  std::string device;
  double seconds = 0;
  for (int r = 0; r < runs; ++r) {
    options.seed = 1000 + r;
    auto gated = gate_kernel(*manifest, *kernel, **backend, sources, options);
    if (!gated.ok() || gated->shapes.empty() || gated->shapes[0].verdict == Verdict::kError ||
        gated->shapes[0].verdict == Verdict::kIncorrect)
      return std::fprintf(stderr, "measurement failed\n"), 3;
    device = gated->device.name;
    seconds += gated->shapes[0].timing_seconds;
    recorded.emplace_back(gated->shapes[0].head_seconds, gated->shapes[0].base_seconds);
  }
  double typical = quantile(recorded[0].second, 0.5);
  std::printf(
      "device: %s; kernel %s / %s (median %.2f us); %d recorded A/A runs of %.2f s budget; "
      "mean %.2f s per recorded gate\n\n",
      device.c_str(), argv[2], argv[3], typical * 1e6, runs, budget, seconds / runs);
  std::printf(
      "| planted | kgate flags | kgate fails gate | kgate mean rounds | median-of-20 vs P10-P90 | "
      "single run vs 5%% |\n"
      "|---|---|---|---|---|---|\n");
  for (double shift : {0.0, 0.02, 0.05, 0.10}) {
    int flags = 0, fails = 0, band = 0, fixed = 0;
    double rounds = 0;
    for (int r = 0; r < runs; ++r) {
      std::vector<double> head = recorded[r].first, base = recorded[r].second;
      for (double& h : head) h *= 1 + shift;
      // Replay the adaptive loop: looks every 5 rounds from 20 on.
      EnoughSamples enough = adaptive_stop(policy);
      size_t n = std::min(head.size(), base.size()), stop = n;
      for (size_t k = 20; k <= n; k += 5) {
        std::vector<double> h(head.begin(), head.begin() + k), b(base.begin(), base.begin() + k);
        if (enough(h, b)) {
          stop = k;
          break;
        }
      }
      std::vector<double> h(head.begin(), head.begin() + stop),
          b(base.begin(), base.begin() + stop);
      RatioInterval interval = paired_ratio_interval(h, b, policy.confidence);
      Verdict v = decide(interval, policy);
      rounds += stop;
      // The stored baseline: 20 samples of the previous run (another session).
      const auto& prev = recorded[(r + runs - 1) % runs].second;
      std::vector<double> stored(prev.begin(), prev.begin() + std::min<size_t>(20, prev.size()));
      std::vector<double> head20(head.begin(), head.begin() + std::min<size_t>(20, head.size()));
      double p10 = quantile(stored, 0.1), p90 = quantile(stored, 0.9), med = quantile(stored, 0.5);
      double m20 = quantile(head20, 0.5), single = head.front();
      if (shift == 0) {
        flags += v == Verdict::kSlower || v == Verdict::kFaster;
        band += m20 > p90 || m20 < p10;
        fixed += std::abs(single / med - 1) > 0.05;
      } else {
        flags += v == Verdict::kSlower;
        band += m20 > p90;
        fixed += single / med - 1 > 0.05;
      }
      fails += breaks_policy(v, interval, policy);
    }
    auto pct = [&](int k) { return 100.0 * k / runs; };
    std::printf(
        "| %s | %.1f%% | %.1f%% | %.0f | %.1f%% | %.1f%% |\n",
        shift == 0 ? "A/A" : (std::string("+") + std::to_string(int(shift * 100)) + "%").c_str(),
        pct(flags), pct(fails), rounds / runs, pct(band), pct(fixed));
  }
  return 0;
}
