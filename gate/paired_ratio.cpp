#include "gate/paired_ratio.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kgate {

nlohmann::json RatioInterval::to_json() const {
  auto finite = [](double v) -> nlohmann::json {
    if (std::isfinite(v)) return v;
    return nullptr;  // JSON has no infinity; null reads back as unbounded
  };
  return {{"estimate", estimate},     {"low", finite(low)},           {"high", finite(high)},
          {"confidence", confidence}, {"median_ratio", median_ratio}, {"pairs", pairs}};
}

RatioInterval RatioInterval::from_json(const nlohmann::json& j) {
  RatioInterval r;
  r.estimate = j.value("estimate", 1.0);
  r.low = j.contains("low") && j["low"].is_number() ? j["low"].get<double>() : 0.0;
  r.high = j.contains("high") && j["high"].is_number() ? j["high"].get<double>()
                                                       : std::numeric_limits<double>::infinity();
  r.confidence = j.value("confidence", 0.0);
  r.median_ratio = j.value("median_ratio", 1.0);
  r.pairs = j.value("pairs", 0);
  return r;
}

double normal_quantile(double p) {
  if (p <= 0) return -std::numeric_limits<double>::infinity();
  if (p >= 1) return std::numeric_limits<double>::infinity();
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  // One Newton (Halley) refinement against erfc.
  double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
  double u = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nan("");
  std::sort(values.begin(), values.end());
  double h = (values.size() - 1) * std::clamp(q, 0.0, 1.0);
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - lo) * (values[hi] - values[lo]);
}

int64_t signed_rank_interval_rank(int n, double confidence) {
  if (n <= 0) return 0;
  double alpha_half = (1 - confidence) / 2;
  int64_t m = int64_t{n} * (n + 1) / 2;
  if (n <= 60) {
    // Exact null distribution of T+: counts of subsets of {1..n} by sum.
    std::vector<double> count(m + 1, 0.0);
    count[0] = 1;
    for (int r = 1; r <= n; ++r)
      for (int64_t s = m; s >= r; --s) count[s] += count[s - r];
    double total = std::ldexp(1.0, n), cumulative = 0;
    // Largest k with P(T+ <= k - 1) <= alpha/2.
    int64_t k = 0;
    for (int64_t t = 0; t <= m; ++t) {
      cumulative += count[t];
      if (cumulative / total > alpha_half) break;
      k = t + 1;
    }
    return k;
  }
  double sd = std::sqrt(n * (n + 1.0) * (2 * n + 1.0) / 24.0);
  double z = normal_quantile(1 - alpha_half);
  auto k = static_cast<int64_t>(std::floor(m / 2.0 + 0.5 - z * sd));
  return std::max<int64_t>(k, 0);
}

namespace {

// Number of pairs i <= j with sorted[i] + sorted[j] <= 2t.
int64_t count_walsh_at_most(const std::vector<double>& sorted, double t) {
  int64_t n = static_cast<int64_t>(sorted.size()), total = 0;
  int64_t j = n - 1;
  for (int64_t i = 0; i < n; ++i) {
    while (j >= 0 && sorted[i] + sorted[j] > 2 * t) --j;
    if (j < i) break;
    total += j - i + 1;
  }
  return total;
}

}  // namespace

double kth_walsh_average(const std::vector<double>& sorted, int64_t k) {
  if (sorted.empty()) return std::nan("");
  double lo = sorted.front(), hi = sorted.back();
  // Invariant: count(hi) >= k. A log ratio known to 1e-13 of the range is
  // far below any timer's resolution.
  const double tolerance = (hi - lo) * 1e-13;
  for (int iter = 0; iter < 200 && hi - lo > tolerance; ++iter) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (count_walsh_at_most(sorted, mid) >= k)
      hi = mid;
    else
      lo = mid;
  }
  if (count_walsh_at_most(sorted, lo) >= k) return lo;
  return hi;
}

RatioInterval paired_ratio_interval(const std::vector<double>& head,
                                    const std::vector<double>& base, double confidence) {
  RatioInterval r;
  r.confidence = confidence;
  std::vector<double> d, h, b;
  size_t n = std::min(head.size(), base.size());
  for (size_t i = 0; i < n; ++i) {
    if (!(head[i] > 0) || !(base[i] > 0) || !std::isfinite(head[i]) || !std::isfinite(base[i]))
      continue;
    d.push_back(std::log(head[i] / base[i]));
    h.push_back(head[i]);
    b.push_back(base[i]);
  }
  r.pairs = static_cast<int>(d.size());
  r.high = std::numeric_limits<double>::infinity();
  if (d.empty()) return r;
  r.median_ratio = quantile(h, 0.5) / quantile(b, 0.5);
  std::sort(d.begin(), d.end());
  int64_t m = static_cast<int64_t>(d.size()) * (static_cast<int64_t>(d.size()) + 1) / 2;
  double centre = m % 2 ? kth_walsh_average(d, (m + 1) / 2)
                        : (kth_walsh_average(d, m / 2) + kth_walsh_average(d, m / 2 + 1)) / 2;
  r.estimate = std::exp(centre);
  int64_t k = signed_rank_interval_rank(r.pairs, confidence);
  if (k >= 1) {
    r.low = std::exp(kth_walsh_average(d, k));
    r.high = std::exp(kth_walsh_average(d, m + 1 - k));
  }
  return r;
}

}  // namespace kgate
