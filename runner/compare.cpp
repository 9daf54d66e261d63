#include "runner/compare.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

#include "core/dtype_convert.h"
#include "core/parallel.h"
#include "runner/inputs.h"

namespace kgate {

nlohmann::json CheckReport::to_json() const {
  auto finite = [](double v) -> nlohmann::json {
    if (std::isfinite(v)) return v;
    return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  };
  return {{"passed", passed},
          {"reason", reason},
          {"max_abs_error", finite(max_abs_error)},
          {"max_rel_error", finite(max_rel_error)},
          {"rel_l2_error", finite(rel_l2_error)},
          {"first_bad_arg", first_bad_arg},
          {"first_bad_index", first_bad_index},
          {"got", finite(got)},
          {"expected", finite(expected)},
          {"seed", seed}};
}

CheckReport CheckReport::from_json(const nlohmann::json& j) {
  auto number = [&](const char* key) {
    const auto& v = j.at(key);
    if (v.is_number()) return v.get<double>();
    std::string s = v.get<std::string>();
    if (s == "nan") return std::nan("");
    return s == "inf" ? double(INFINITY) : -double(INFINITY);
  };
  CheckReport r;
  r.passed = j.value("passed", false);
  r.reason = j.value("reason", "");
  r.max_abs_error = number("max_abs_error");
  r.max_rel_error = number("max_rel_error");
  r.rel_l2_error = number("rel_l2_error");
  r.first_bad_arg = j.value("first_bad_arg", "");
  r.first_bad_index = j.value("first_bad_index", int64_t{-1});
  r.got = number("got");
  r.expected = number("expected");
  r.seed = j.value("seed", uint64_t{0});
  return r;
}

namespace {
std::string format(double v) {
  std::ostringstream s;
  s.precision(6);
  s << v;
  return s.str();
}
}  // namespace

namespace {

// One chunk's share of a comparison. Chunks have a fixed length, so the
// merged sums do not depend on how many threads ran them.
struct ChunkStats {
  double max_abs = 0, max_rel = 0, diff_sq = 0, ref_sq = 0;
  bool non_finite = false;  // an unwritten element or a NaN/Inf where none belongs
  int64_t first_bad = -1;
  bool first_unwritten = false, first_bad_value = false;
  double got = 0, expected = 0, diff = 0;
};

constexpr int64_t kCompareChunk = int64_t{1} << 18;

// The bounds one output is held to, scaled.
struct Bounds {
  double atol = 0, rtol = 0, ulp = 0, scale_abs = 0;  // scale_abs: scale_rel * max |ref|
  DType ulp_type = DType::kFloat32;

  double allowed(double expected) const {
    double a = atol + rtol * std::abs(expected);
    if (ulp > 0) a = std::max(a, ulp * ulp_of(ulp_type, expected));
    return std::max(a, scale_abs);
  }
};

void compare_chunk(const ArgPlan& p, const unsigned char* out, const double* ref, int64_t begin,
                   int64_t end, const Bounds& tolerance, ChunkStats& c) {
  const size_t esize = dtype_size(p.arg->dtype);
  // Every poisoned float element reads as NaN: only NaNs need the byte test.
  const bool poison_is_nan = dtype_is_float(p.arg->dtype);
  constexpr int64_t kBlock = 2048;
  double values[kBlock];
  for (int64_t block = begin; block < end; block += kBlock) {
    const int64_t stop = std::min(end, block + kBlock);
    load_range_as_double(p.arg->dtype, out, block, stop, values);
    for (int64_t i = block; i < stop; ++i) {
      const double expected = ref[i];
      const double got = values[i - block];
      const bool unwritten =
          (!poison_is_nan || std::isnan(got)) && is_poison(out, esize, static_cast<size_t>(i));
      const double diff = std::abs(got - expected);
      const bool bad_value = std::isnan(got) || (std::isinf(got) && got != expected);
      if (!bad_value) {
        c.max_abs = std::max(c.max_abs, diff);
        c.max_rel = std::max(c.max_rel, diff / std::max(std::abs(expected), tolerance.atol));
        c.diff_sq += diff * diff;
        c.ref_sq += expected * expected;
      }
      const bool bad = unwritten || bad_value || diff > tolerance.allowed(expected);
      if (bad && c.first_bad < 0) {
        c.first_bad = i;
        c.first_unwritten = unwritten;
        c.first_bad_value = bad_value;
        c.got = got;
        c.expected = expected;
        c.diff = diff;
      }
      c.non_finite |= unwritten || bad_value;
    }
  }
}

}  // namespace

double ulp_of(DType type, double x) {
  int mantissa = 0, min_exponent = 0;
  switch (type) {
    case DType::kFloat64:
      mantissa = 52, min_exponent = -1022;
      break;
    case DType::kFloat32:
      mantissa = 23, min_exponent = -126;
      break;
    case DType::kFloat16:
      mantissa = 10, min_exponent = -14;
      break;
    case DType::kBFloat16:
      mantissa = 7, min_exponent = -126;
      break;
    case DType::kFp8E4M3:
      mantissa = 3, min_exponent = -6;
      break;
    case DType::kFp8E5M2:
      mantissa = 2, min_exponent = -14;
      break;
    default:
      return 1;
  }
  const double m = std::abs(x);
  int exponent = std::isfinite(m) && m > 0 ? std::ilogb(m) : min_exponent;
  return std::ldexp(1.0, std::max(exponent, min_exponent) - mantissa);
}

CheckReport compare_outputs(const LaunchPlan& plan, const HostData& outputs,
                            const DoubleData& reference, double factor) {
  CheckReport report;
  double diff_sq = 0, ref_sq = 0;
  bool failed = false, non_finite = false;
  for (size_t a = 0; a < plan.args.size(); ++a) {
    const ArgPlan& p = plan.args[a];
    if (!p.compared()) continue;
    const Tolerance& t = p.tolerance;
    Bounds tolerance{t.atol * factor, t.rtol * factor, t.ulp * factor, 0, p.ulp_type};
    if (t.scale_rel > 0) {
      double largest = 0;
      for (int64_t i = 0; i < p.count; ++i)
        if (std::isfinite(reference[a][i])) largest = std::max(largest, std::abs(reference[a][i]));
      tolerance.scale_abs = t.scale_rel * factor * largest;
    }
    // Large outputs (a 128k-wide softmax over 2k rows) are compared on every core.
    const int64_t chunks = (p.count + kCompareChunk - 1) / kCompareChunk;
    std::vector<ChunkStats> stats(chunks);
    parallel_for(
        chunks, 1,
        [&](int64_t begin, int64_t end) {
          for (int64_t c = begin; c < end; ++c)
            compare_chunk(p, outputs[a].data(), reference[a].data(), c * kCompareChunk,
                          std::min(p.count, (c + 1) * kCompareChunk), tolerance, stats[c]);
        },
        0);
    for (const ChunkStats& c : stats) {
      report.max_abs_error = std::max(report.max_abs_error, c.max_abs);
      report.max_rel_error = std::max(report.max_rel_error, c.max_rel);
      diff_sq += c.diff_sq;
      ref_sq += c.ref_sq;
      non_finite |= c.non_finite;
      if (c.first_bad < 0 || failed) continue;
      failed = true;
      const int64_t i = c.first_bad;
      report.first_bad_arg = p.arg->name;
      report.first_bad_index = i;
      report.got = c.got;
      report.expected = c.expected;
      if (c.first_unwritten) {
        report.reason = "element " + std::to_string(i) + " of '" + p.arg->name +
                        "' was not written (still holds the poison pattern)";
      } else if (c.first_bad_value) {
        report.reason = "element " + std::to_string(i) + " of '" + p.arg->name + "' is " +
                        format(c.got) + " (expected " + format(c.expected) + ")";
      } else {
        std::string bound = "atol " + format(tolerance.atol) + " + rtol " + format(tolerance.rtol) +
                            " * |expected|";
        if (tolerance.ulp > 0) bound += ", " + format(tolerance.ulp) + " ulp";
        if (tolerance.scale_abs > 0)
          bound += ", scale_rel " + format(t.scale_rel * factor) + " * max |expected|";
        report.reason = "element " + std::to_string(i) + " of '" + p.arg->name + "' is " +
                        format(c.got) + ", expected " + format(c.expected) + " (error " +
                        format(c.diff) + " > " + bound + ")";
      }
    }
  }
  if (non_finite) {
    report.max_abs_error = INFINITY;
    report.max_rel_error = INFINITY;
  }
  report.rel_l2_error = failed && std::isinf(report.max_abs_error)
                            ? INFINITY
                            : (ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : std::sqrt(diff_sq));
  report.passed = !failed;
  return report;
}

CheckReport compare_runs(const LaunchPlan& plan, const HostData& first, const HostData& second) {
  CheckReport report;
  report.passed = true;
  for (size_t a = 0; a < plan.args.size(); ++a) {
    const ArgPlan& p = plan.args[a];
    if (!p.compared()) continue;
    const Bounds tolerance{p.tolerance.atol, p.tolerance.rtol, p.tolerance.ulp, 0, p.ulp_type};
    if (std::memcmp(first[a].data(), second[a].data(), first[a].size()) == 0) continue;
    size_t esize = dtype_size(p.arg->dtype);
    for (int64_t i = 0; i < p.count; ++i) {
      if (std::memcmp(first[a].data() + i * esize, second[a].data() + i * esize, esize) == 0)
        continue;
      double x = load_as_double(p.arg->dtype, first[a].data(), i);
      double y = load_as_double(p.arg->dtype, second[a].data(), i);
      double diff = std::abs(x - y);
      report.max_abs_error = std::max(report.max_abs_error, std::isnan(diff) ? INFINITY : diff);
      bool beyond = std::isnan(diff) || diff > tolerance.allowed(x);
      if (report.first_bad_index < 0 || (beyond && report.passed)) {
        report.first_bad_arg = p.arg->name;
        report.first_bad_index = i;
        report.got = y;
        report.expected = x;
      }
      if (beyond && report.passed) {
        report.passed = false;
        report.reason = "race: element " + std::to_string(i) + " of '" + p.arg->name +
                        "' changed between two runs on the same input (" + format(x) + " then " +
                        format(y) + ")";
      }
    }
    if (report.passed && report.reason.empty())
      report.reason = "non-deterministic within tolerance: '" + p.arg->name +
                      "' differs bitwise between two runs on the same input";
  }
  return report;
}

}  // namespace kgate
