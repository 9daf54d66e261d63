#include "gate/workload_comparison.h"

#include <cmath>
#include <sstream>

namespace kgate {
namespace {

using json = nlohmann::json;

std::string short_value(const json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

FieldComparison compare_equal(const json& base, const json& cand) {
  FieldComparison c;
  if (base.is_array() && cand.is_array()) {
    c.compared = std::max(base.size(), cand.size());
    for (size_t i = 0; i < c.compared; ++i) {
      bool same = i < base.size() && i < cand.size() && base[i] == cand[i];
      if (same) continue;
      if (c.first_mismatch < 0) {
        c.first_mismatch = long(i);
        c.detail = "differs from index " + std::to_string(i) + ": base " +
                   (i < base.size() ? short_value(base[i]) : "(ends)") + ", candidate " +
                   (i < cand.size() ? short_value(cand[i]) : "(ends)");
      }
      c.mismatches++;
    }
  } else {
    c.compared = 1;
    if (base != cand) {
      c.mismatches = 1;
      c.detail = "base " + short_value(base) + ", candidate " + short_value(cand);
    }
  }
  c.passed = c.mismatches == 0;
  if (!c.passed && base.is_array())
    c.detail += " (" + std::to_string(c.mismatches) + " of " + std::to_string(c.compared) + ")";
  return c;
}

bool numeric(const json& v) {
  return v.is_number() || v.is_null();
}  // null: NaN as JSON writes it

double as_double(const json& v) {
  return v.is_number() ? v.get<double>() : std::nan("");
}

FieldComparison compare_close(const json& base, const json& cand, double atol, double rtol) {
  FieldComparison c;
  json b = base.is_array() ? base : json::array({base});
  json k = cand.is_array() ? cand : json::array({cand});
  if (b.size() != k.size()) {
    c.detail = "length " + std::to_string(k.size()) + ", base has " + std::to_string(b.size());
    c.mismatches = 1;
    return c;
  }
  c.compared = b.size();
  for (size_t i = 0; i < b.size(); ++i) {
    if (!numeric(b[i]) || !numeric(k[i])) {
      c.detail = "index " + std::to_string(i) + " is not a number";
      c.mismatches++;
      if (c.first_mismatch < 0) c.first_mismatch = long(i);
      continue;
    }
    double x = as_double(b[i]), y = as_double(k[i]);
    double err = std::fabs(y - x);
    bool ok = std::isfinite(x) && std::isfinite(y) && err <= atol + rtol * std::fabs(x);
    if (std::isfinite(err)) {
      c.max_abs_error = std::max(c.max_abs_error, err);
      if (x != 0) c.max_rel_error = std::max(c.max_rel_error, err / std::fabs(x));
    } else {
      c.max_abs_error = INFINITY;
    }
    if (!ok) {
      if (c.first_mismatch < 0) {
        c.first_mismatch = long(i);
        std::ostringstream d;
        d << "index " << i << ": base " << x << ", candidate " << y << " (allowed " << atol << " + "
          << rtol << " * |base|)";
        c.detail = d.str();
      }
      c.mismatches++;
    }
  }
  c.passed = c.mismatches == 0;
  if (!c.passed)
    c.detail += "; " + std::to_string(c.mismatches) + " of " + std::to_string(c.compared) +
                " outside the tolerance";
  return c;
}

}  // namespace

json FieldComparison::to_json() const {
  return {{"field", field},
          {"rule", rule},
          {"passed", passed},
          {"detail", detail},
          {"compared", compared},
          {"mismatches", mismatches},
          {"first_mismatch", first_mismatch},
          {"max_abs_error", std::isfinite(max_abs_error) ? json(max_abs_error) : json("inf")},
          {"max_rel_error", max_rel_error}};
}

std::string OutputComparisonResult::summary() const {
  for (const FieldComparison& f : fields)
    if (!f.passed) return f.field + " " + f.detail;
  std::string s = "outputs match (";
  for (size_t i = 0; i < fields.size(); ++i) {
    const FieldComparison& f = fields[i];
    std::ostringstream part;
    if (f.rule == "equal")
      part << f.field << " equal";
    else
      part << f.field << " max abs error " << f.max_abs_error;
    s += (i ? ", " : "") + part.str();
  }
  return s + ")";
}

json OutputComparisonResult::to_json() const {
  json f = json::array();
  for (const FieldComparison& c : fields) f.push_back(c.to_json());
  return {{"matched", matched}, {"summary", summary()}, {"fields", f}};
}

OutputComparisonResult compare_workload_outputs(const json& base, const json& candidate,
                                                const std::vector<OutputComparison>& rules) {
  OutputComparisonResult r;
  r.matched = true;
  for (const OutputComparison& rule : rules) {
    FieldComparison c;
    bool in_base = base.is_object() && base.contains(rule.field);
    bool in_cand = candidate.is_object() && candidate.contains(rule.field);
    if (!in_base || !in_cand) {
      c.detail = std::string("missing from the ") +
                 (!in_base && !in_cand ? "base's and the candidate's"
                  : !in_base           ? "base's"
                                       : "candidate's") +
                 " output";
    } else if (rule.rule == "equal") {
      c = compare_equal(base[rule.field], candidate[rule.field]);
    } else {
      c = compare_close(base[rule.field], candidate[rule.field], rule.atol, rule.rtol);
    }
    c.field = rule.field;
    c.rule = rule.rule;
    r.matched &= c.passed;
    r.fields.push_back(std::move(c));
  }
  return r;
}

}  // namespace kgate
