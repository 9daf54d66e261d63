#include "gate/recorded_replay.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/file_util.h"
#include "gate/paired_ratio.h"
#include "gate/verdict.h"

namespace kgate {

double RecordedRounds::seconds_per_round() const {
  return rounds() ? loop_seconds / static_cast<double>(rounds()) : 0;
}

double RecordedRounds::median_s() const {
  return quantile(base, 0.5);
}

nlohmann::json RecordedRounds::to_json() const {
  return {{"kernel", kernel},
          {"shape", shape},
          {"phase", phase},
          {"device", device},
          {"loop_seconds", loop_seconds},
          {"check_seconds", check_seconds},
          {"head", head},
          {"base", base}};
}

Result<RecordedRounds> RecordedRounds::from_json(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("head") || !j.contains("base") || !j["head"].is_array() ||
      !j["base"].is_array())
    return Error::bad_input("a recording needs \"head\" and \"base\" arrays of seconds");
  RecordedRounds r;
  r.kernel = j.value("kernel", "");
  r.shape = j.value("shape", "");
  r.phase = j.value("phase", "");
  r.device = j.value("device", "");
  r.loop_seconds = j.value("loop_seconds", 0.0);
  r.check_seconds = j.value("check_seconds", 0.0);
  for (const auto& v : j["head"]) {
    if (!v.is_number()) return Error::bad_input("\"head\" holds a value that is not a number");
    r.head.push_back(v.get<double>());
  }
  for (const auto& v : j["base"]) {
    if (!v.is_number()) return Error::bad_input("\"base\" holds a value that is not a number");
    r.base.push_back(v.get<double>());
  }
  if (r.head.size() != r.base.size())
    return Error::bad_input("\"head\" and \"base\" differ in length (" +
                            std::to_string(r.head.size()) + " and " +
                            std::to_string(r.base.size()) + " samples): rounds come in pairs");
  return r;
}

Status save_rounds(const std::filesystem::path& path, const RecordedRounds& rounds) {
  return write_file_atomic(path, rounds.to_json().dump());
}

Result<RecordedRounds> load_rounds(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text.ok()) return text.error();
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return Error::bad_input(path.string() + " is not JSON");
  auto r = RecordedRounds::from_json(j);
  if (!r.ok()) return Error::bad_input(path.string() + ": " + r.error().message);
  return r;
}

namespace {

ReplayRates replay_one(const RecordedRounds& rec, const ReplayOptions& o, double planted,
                       int budget_rounds) {
  ReplayRates rates;
  rates.planted = planted;
  const size_t total = rec.rounds();
  const size_t first = static_cast<size_t>(o.baseline_samples);
  const double spr = rec.seconds_per_round();
  size_t start = first, previous = 0;  // the stored baseline: 20 base samples before this gate
  double rounds_sum = 0, seconds_sum = 0;
  std::vector<double> head, base;
  while (rates.gates < o.gates && start + o.min_rounds <= total) {
    head.clear();
    base.clear();
    // The harness: a look every 5 rounds from min_rounds on, stop at the budget.
    EnoughSamples enough = adaptive_stop(o.policy);
    size_t used = 0;
    bool ran_out = false;
    for (int n = 1;; ++n) {
      if (start + n > total) {
        ran_out = true;  // this gate would need rounds past the recording: not replayed
        break;
      }
      head.push_back(rec.head[start + n - 1] * (1 + planted));
      base.push_back(rec.base[start + n - 1]);
      if (n >= o.min_rounds && (n >= budget_rounds || (n % 5 == 0 && enough(head, base)))) {
        used = static_cast<size_t>(n);
        break;
      }
    }
    if (ran_out) break;
    RatioInterval interval = paired_ratio_interval(head, base, o.policy.confidence);
    Verdict v = decide(interval, o.policy, quantile(base, 0.5));

    std::vector<double> stored(rec.base.begin() + previous,
                               rec.base.begin() + previous + o.baseline_samples);
    size_t k = std::min<size_t>(o.baseline_samples, head.size());
    std::vector<double> head20(head.begin(), head.begin() + k);
    double p10 = quantile(stored, 0.1), p90 = quantile(stored, 0.9), med = quantile(stored, 0.5);
    double m20 = quantile(head20, 0.5), single = head.front();
    if (planted == 0) {
      rates.kgate_flags += v == Verdict::kSlower || v == Verdict::kFaster;
      rates.band_flags += m20 > p90 || m20 < p10;
      rates.fixed_flags += std::abs(single / med - 1) > o.fixed_threshold;
    } else {
      rates.kgate_flags += v == Verdict::kSlower;
      rates.band_flags += m20 > p90;
      rates.fixed_flags += single / med - 1 > o.fixed_threshold;
    }
    rates.kgate_fails += breaks_policy(v, interval, o.policy);
    rates.kgate_same += v == Verdict::kSame;
    rates.kgate_inconclusive += v == Verdict::kInconclusive;
    double seconds = used * spr + rec.check_seconds;
    rounds_sum += used;
    seconds_sum += seconds;
    rates.max_rounds = std::max(rates.max_rounds, static_cast<double>(used));
    rates.max_gate_seconds = std::max(rates.max_gate_seconds, seconds);
    ++rates.gates;
    previous = start;
    start += used;
  }
  if (rates.gates) {
    rates.mean_rounds = rounds_sum / rates.gates;
    rates.mean_gate_seconds = seconds_sum / rates.gates;
  }
  return rates;
}

int budget_rounds_for(const RecordedRounds& rec, const ReplayOptions& o) {
  double spr = rec.seconds_per_round();
  // No pace recorded: the budget cannot bind; the recording's length does.
  if (!(spr > 0)) return static_cast<int>(std::min<size_t>(rec.rounds(), 1u << 30));
  double rounds = std::floor(o.policy.budget_s / spr + 1e-9);  // 0.05 / 1e-3 is 49.999...
  return std::max(o.min_rounds, static_cast<int>(std::min(rounds, 1e9)));
}

std::string percent(int count, int of) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.1f%% (%d/%d)", of ? 100.0 * count / of : 0.0, count, of);
  return buf;
}

std::string planted_name(double planted) {
  if (planted == 0) return "A/A";
  char buf[16];
  std::snprintf(buf, sizeof buf, "+%g%%", planted * 100);
  return buf;
}

const ReplayRates* find_rates(const ReplayResult& result, double planted) {
  for (const ReplayRates& r : result.rates)
    if (std::abs(r.planted - planted) < 1e-9) return &r;
  return nullptr;
}

}  // namespace

ReplayResult replay_gates(const RecordedRounds& recorded, const ReplayOptions& options,
                          const std::vector<double>& planted) {
  ReplayResult result;
  result.budget_rounds = budget_rounds_for(recorded, options);
  if (recorded.rounds() < static_cast<size_t>(options.baseline_samples)) return result;
  for (double p : planted)
    result.rates.push_back(replay_one(recorded, options, p, result.budget_rounds));
  return result;
}

TargetCheck check_targets(const RecordedRounds& recorded, const ReplayResult& result) {
  TargetCheck t;
  t.detect_planted = recorded.median_s() >= 20e-6 ? 0.02 : 0.05;
  const ReplayRates* aa = find_rates(result, 0);
  const ReplayRates* slow = find_rates(result, t.detect_planted);
  t.aa_ok = aa && aa->gates > 0 && aa->rate(aa->kgate_flags) <= 0.01;
  t.detect_ok = slow && slow->gates > 0 && slow->rate(slow->kgate_flags) >= 0.95;
  t.time_ok =
      aa && aa->gates > 0 && aa->mean_gate_seconds <= 1.5 && slow && slow->mean_gate_seconds <= 1.5;
  return t;
}

std::string replay_markdown(const RecordedRounds& rec, const ReplayOptions& options,
                            const ReplayResult& result) {
  std::string md;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "`%s / %s` (%s, median %.2f µs, %s): %zu recorded A/A rounds in %.1f s "
                "(%.1f µs per round); budget %.2f s = %d rounds per gate; the check before timing "
                "took %.3f s.\n\n",
                rec.kernel.c_str(), rec.shape.c_str(), rec.phase.c_str(), rec.median_s() * 1e6,
                rec.device.c_str(), rec.rounds(), rec.loop_seconds, rec.seconds_per_round() * 1e6,
                options.policy.budget_s, result.budget_rounds, rec.check_seconds);
  md += buf;
  md +=
      "| planted | gates | kgate flags | kgate fails gate | same / inconclusive | rounds mean "
      "(max) "
      "| GPU s per gate mean (max) | median-of-20 vs P10-P90 | single run vs 5% |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ReplayRates& r : result.rates) {
    std::snprintf(buf, sizeof buf,
                  "| %s | %d | %s | %s | %d / %d | %.0f (%.0f) | %.3f (%.3f) | %s | %s |\n",
                  planted_name(r.planted).c_str(), r.gates, percent(r.kgate_flags, r.gates).c_str(),
                  percent(r.kgate_fails, r.gates).c_str(), r.kgate_same, r.kgate_inconclusive,
                  r.mean_rounds, r.max_rounds, r.mean_gate_seconds, r.max_gate_seconds,
                  percent(r.band_flags, r.gates).c_str(), percent(r.fixed_flags, r.gates).c_str());
    md += buf;
  }
  TargetCheck t = check_targets(rec, result);
  const ReplayRates* aa = find_rates(result, 0);
  const ReplayRates* slow = find_rates(result, t.detect_planted);
  std::snprintf(
      buf, sizeof buf,
      "\nTargets: A/A false alarms ≤ 1%%: %s (%.1f%%); +%.0f%% caught ≥ 95%% (%s kernel): %s "
      "(%.1f%%); about 1 s per gate: %s (%.3f s mean).\n",
      t.aa_ok ? "met" : "**missed**", aa ? 100 * aa->rate(aa->kgate_flags) : 0.0,
      t.detect_planted * 100, t.detect_planted == 0.02 ? "≥ 20 µs" : "< 20 µs",
      t.detect_ok ? "met" : "**missed**", slow ? 100 * slow->rate(slow->kgate_flags) : 0.0,
      t.time_ok ? "met" : "**missed**", aa ? aa->mean_gate_seconds : 0.0);
  md += buf;
  if (!t.all()) {
    // The same rounds replayed under other settings: what each costs.
    md +=
        "\nTrade-off on the same rounds (a longer budget leaves fewer gates in the recording):\n\n"
        "| confidence | budget s | gates (A/A) | A/A flags | +2% caught | +5% caught | +10% caught "
        "| GPU s per gate (A/A, +2%) |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (double confidence : {0.95, 0.99, 0.999}) {
      for (double scale : {0.5, 1.0, 2.0, 4.0}) {
        ReplayOptions o = options;
        o.policy.confidence = confidence;
        o.policy.budget_s = options.policy.budget_s * scale;
        ReplayResult r = replay_gates(rec, o, {0, 0.02, 0.05, 0.10});
        if (r.rates.size() != 4) continue;
        auto rate = [](const ReplayRates& x) {
          char b[24];
          std::snprintf(b, sizeof b, "%.1f%%", 100 * x.rate(x.kgate_flags));
          return std::string(b);
        };
        std::snprintf(buf, sizeof buf, "| %g | %.2f | %d | %s | %s | %s | %s | %.3f, %.3f |\n",
                      confidence, o.policy.budget_s, r.rates[0].gates, rate(r.rates[0]).c_str(),
                      rate(r.rates[1]).c_str(), rate(r.rates[2]).c_str(), rate(r.rates[3]).c_str(),
                      r.rates[0].mean_gate_seconds, r.rates[1].mean_gate_seconds);
        md += buf;
      }
    }
  }
  return md + "\n";
}

}  // namespace kgate
