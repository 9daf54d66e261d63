#pragma once
// The gate's decision rules replayed on recorded A/A timing rounds.
//
// A recording is one long interleaved A/A run of one kernel-shape (the same
// program loaded twice as head and base, timed as the harness times a gate).
// The replay cuts it into consecutive, disjoint chunks, one per gate run, as
// if gates had run back to back: each gate takes rounds from where the last
// one stopped, applies the adaptive stopping rule of the harness (a look
// every 5 rounds from min_rounds on, stop at the budget) and decides with
// the real paired_ratio_interval / decide / breaks_policy. A planted
// slowdown multiplies head's samples by (1 + planted). Beside it, two
// simpler rules on the same rounds: (a) the median of the first 20 head
// samples of the gate against a stored baseline's P10–P90 band, (b) the
// first head sample against the stored median with a fixed 5% threshold; the
// stored baseline is the first 20 base samples of the previous gate's chunk
// (the first gate's is the 20 rounds before it).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/manifest.h"
#include "core/status.h"

namespace kgate {

// Invariant: head.size() == base.size(); round i is head[i], base[i] timed
// back to back (alternating order) in one process on one device.
struct RecordedRounds {
  std::string kernel, shape, phase, device;
  std::vector<double> head, base;  // seconds per sample
  double loop_seconds = 0;         // wall time of the timing loop that took them
  double check_seconds = 0;        // one gate's work before timing (inputs, reference, checks)

  size_t rounds() const { return std::min(head.size(), base.size()); }
  // Wall time one interleaved round costs (both launches, flushes, syncs).
  double seconds_per_round() const;
  double median_s() const;  // of base's samples

  nlohmann::json to_json() const;
  static Result<RecordedRounds> from_json(const nlohmann::json& j);
};

Status save_rounds(const std::filesystem::path& path, const RecordedRounds& rounds);
Result<RecordedRounds> load_rounds(const std::filesystem::path& path);

struct ReplayOptions {
  GatePolicy policy;    // confidence, resolution, budget_s as the gate uses them
  int gates = 100;      // gate runs wanted per planted factor
  int min_rounds = 20;  // rounds before the first look (GateOptions::min_samples)
  int baseline_samples = 20;
  double fixed_threshold = 0.05;
};

// The outcome of `gates` replayed gate runs at one planted factor.
struct ReplayRates {
  double planted = 0;   // 0: A/A
  int gates = 0;        // gate runs replayed (fewer than asked when rounds ran out)
  int kgate_flags = 0;  // A/A: verdict slower or faster; planted: slower
  int kgate_fails = 0;  // the gate would block the merge
  int kgate_same = 0, kgate_inconclusive = 0;
  int band_flags = 0;   // median of 20 outside (A/A) / above (planted) the P10–P90 band
  int fixed_flags = 0;  // single run beyond +-5% (A/A) / above +5% (planted)
  double mean_rounds = 0;
  double max_rounds = 0;
  double mean_gate_seconds = 0;  // timing loop (rounds x seconds per round) + check
  double max_gate_seconds = 0;

  double rate(int count) const { return gates ? static_cast<double>(count) / gates : 0; }
};

struct ReplayResult {
  int budget_rounds = 0;           // rounds the policy's budget_s buys at the recorded pace
  std::vector<ReplayRates> rates;  // one per planted factor, in the order asked
};

ReplayResult replay_gates(const RecordedRounds& recorded, const ReplayOptions& options,
                          const std::vector<double>& planted);

// The targets for one kernel-shape: A/A false alarms <= 1%; a
// planted 2% slowdown caught >= 95% on kernels of 20 us or more, 5% on
// shorter ones; about 1 s (here: at most 1.5 s) per gate on average.
struct TargetCheck {
  bool aa_ok = false, detect_ok = false, time_ok = false;
  double detect_planted = 0;  // 0.02 or 0.05
  bool all() const { return aa_ok && detect_ok && time_ok; }
};
TargetCheck check_targets(const RecordedRounds& recorded, const ReplayResult& result);

// Markdown for docs/BENCHMARKS.md: a heading line per kernel-shape, the
// table of rates, the targets, and, where one is missed, a trade-off curve
// over confidence and budget (replayed on the same rounds).
std::string replay_markdown(const RecordedRounds& recorded, const ReplayOptions& options,
                            const ReplayResult& result);

}  // namespace kgate
