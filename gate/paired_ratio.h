#pragma once
// The gate's statistic: how much slower or faster head is than base, with a
// confidence interval, from samples timed interleaved in rounds.
//
// Round i gives one pair (head[i], base[i]) timed back to back, so clock,
// thermal and co-tenant drift hit both alike. The statistic works on the
// per-round log ratios d_i = log(head[i] / base[i]): the Hodges–Lehmann
// estimate (median of the Walsh averages (d_i + d_j) / 2) and the
// distribution-free interval that inverts the Wilcoxon signed-rank test.
// Under "no change" d is symmetric about 0 (the two programs are
// exchangeable within a round), so the interval's coverage holds whatever
// the shape of the timing noise: skewed, heavy-tailed or bimodal.
// See docs/gate.md for the argument.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgate {

// Invariant: low <= estimate <= high when pairs > 0; all are ratios head/base
// (1.05 = head 5% slower). low/high are 0 / +inf when too few pairs exist
// for the confidence asked.
struct RatioInterval {
  double estimate = 1;       // exp(Hodges–Lehmann estimate of the mean log ratio)
  double low = 0, high = 0;  // interval on the ratio at `confidence`
  double confidence = 0;
  double median_ratio = 1;  // median(head) / median(base), descriptive
  int pairs = 0;

  bool excludes_one() const { return low > 1 || high < 1; }
  nlohmann::json to_json() const;
  static RatioInterval from_json(const nlohmann::json& j);
};

// Pairs head[i] with base[i] (the shorter length wins). Non-positive or
// non-finite samples are dropped (a broken timer, not a kernel property).
RatioInterval paired_ratio_interval(const std::vector<double>& head,
                                    const std::vector<double>& base, double confidence);

// The one-sided rank k (1-based) such that [W_(k), W_(M+1-k)] of the M =
// n(n+1)/2 sorted Walsh averages covers the centre with `confidence`. 0 when
// n is too small for that confidence. Exact for n <= 60, normal beyond.
int64_t signed_rank_interval_rank(int n, double confidence);

// The k-th smallest (1-based) Walsh average of `sorted` (ascending), found in
// O(n log range) without forming the n(n+1)/2 averages.
double kth_walsh_average(const std::vector<double>& sorted, int64_t k);

// Type-7 (linear interpolation) quantile, q in [0, 1]; NaN when empty.
double quantile(std::vector<double> values, double q);

// Inverse of the standard normal CDF (Acklam's rational approximation with
// one Newton step; absolute error below 1e-12).
double normal_quantile(double p);

}  // namespace kgate
