#include "gate/drift.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "gate/paired_ratio.h"

namespace kgate {

std::vector<ChangePoint> find_change_points(const std::vector<double>& series,
                                            const DriftOptions& options) {
  std::vector<double> x;
  for (double v : series) x.push_back(std::log(std::max(v, 1e-300)));
  int n = static_cast<int>(x.size());
  std::vector<ChangePoint> found;
  if (n < 2 * options.min_segment) return found;
  std::vector<double> diffs;
  for (int i = 1; i < n; ++i) diffs.push_back(std::abs(x[i] - x[i - 1]));
  // MAD of successive differences: level shifts affect only a few of them.
  double sigma = std::max(1.4826 * quantile(diffs, 0.5) / std::sqrt(2.0), options.noise_floor);

  std::function<void(int, int)> split = [&](int a, int b) {  // segment [a, b)
    int len = b - a;
    if (len < 2 * options.min_segment) return;
    std::vector<double> prefix(len + 1, 0);
    for (int i = 0; i < len; ++i) prefix[i + 1] = prefix[i] + x[a + i];
    int best = -1;
    double best_stat = 0;
    for (int t = options.min_segment; t <= len - options.min_segment; ++t) {
      double left = prefix[t] / t, right = (prefix[len] - prefix[t]) / (len - t);
      double stat = std::abs(right - left) * std::sqrt(double(t) * (len - t) / len) / sigma;
      if (stat > best_stat) best_stat = stat, best = t;
    }
    if (best < 0 || best_stat < options.threshold) return;
    std::vector<double> left(x.begin() + a, x.begin() + a + best),
        right(x.begin() + a + best, x.begin() + b);
    double before = std::exp(quantile(left, 0.5)), after = std::exp(quantile(right, 0.5));
    if (std::abs(after / before - 1) < options.min_shift) return;
    found.push_back({a + best, before, after, after / before, best_stat});
    split(a, a + best);
    split(a + best, b);
  };
  split(0, n);
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& p, const ChangePoint& q) { return p.index < q.index; });
  return found;
}

}  // namespace kgate
