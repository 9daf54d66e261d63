#include "runner/side_compatibility.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace kgate {
namespace {

std::string role_name(ArgRole role) {
  switch (role) {
    case ArgRole::kInput:
      return "an input";
    case ArgRole::kOutput:
      return "an output";
    case ArgRole::kInOut:
      return "inout";
  }
  return "?";
}

std::string type_name(const Arg& a) {
  return std::string(dtype_name(a.dtype)) + (a.is_buffer ? "*" : "");
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

std::string scalar_text(const ArgPlan& a) {
  if (a.arg->dtype == DType::kInt64) {
    int64_t v = 0;
    std::memcpy(&v, a.scalar.bytes, 8);
    return std::to_string(v);
  }
  return number(load_as_double(a.arg->dtype, a.scalar.bytes, 0));
}

bool same_init(const ArgPlan& h, const ArgPlan& b) {
  const InitSpec &x = h.arg->init, &y = b.arg->init;
  if (x.distribution != y.distribution) return false;
  switch (x.distribution) {
    case InitSpec::Distribution::kNormal:
      return x.mean == y.mean && x.stddev == y.stddev;
    case InitSpec::Distribution::kUniform:
      return x.low == y.low && x.high == y.high;
    case InitSpec::Distribution::kRandInt:
      return h.randint_low == b.randint_low && h.randint_high == b.randint_high;
  }
  return false;
}

std::string names_only_in(const LaunchPlan& in, const LaunchPlan& other) {
  std::string out;
  int n = 0;
  for (const ArgPlan& a : in.args) {
    bool found = std::any_of(other.args.begin(), other.args.end(),
                             [&](const ArgPlan& o) { return o.arg->name == a.arg->name; });
    if (found) continue;
    out += (n++ ? ", '" : "'") + a.arg->name + "'";
  }
  return n == 0 ? "" : (n == 1 ? "argument " : "arguments ") + out;
}

}  // namespace

std::string shape_difference(const Shape& head, const Shape* base) {
  if (!base) return "the base has no shape '" + head.name + "'";
  for (const auto& [name, value] : head.variables) {
    auto it = base->variables.find(name);
    if (it == base->variables.end())
      return "the base's shape '" + head.name + "' has no '" + name + "' (the head's has " + name +
             "=" + std::to_string(value) + ")";
    if (it->second != value)
      return "the base's shape '" + head.name + "' has " + name + "=" + std::to_string(it->second) +
             ", the head's " + name + "=" + std::to_string(value);
  }
  for (const auto& [name, value] : base->variables)
    if (!head.variables.count(name))
      return "the head's shape '" + head.name + "' has no '" + name + "' (the base's has " + name +
             "=" + std::to_string(value) + ")";
  return "";
}

std::string plan_difference(const LaunchPlan& head, const LaunchPlan& base) {
  if (head.args.size() != base.args.size()) {
    std::string added = names_only_in(head, base), dropped = names_only_in(base, head);
    if (!added.empty() && !dropped.empty())
      return "the head adds " + added + " and drops " + dropped;
    if (!added.empty()) return "the head adds " + added;
    if (!dropped.empty()) return "the head drops " + dropped;
    return "the head has " + std::to_string(head.args.size()) + " arguments, the base " +
           std::to_string(base.args.size());
  }
  for (size_t i = 0; i < head.args.size(); ++i) {
    const ArgPlan &h = head.args[i], &b = base.args[i];
    const std::string name = "argument " + std::to_string(i) + " ('" + h.arg->name + "')";
    if (h.arg->is_buffer != b.arg->is_buffer || h.arg->dtype != b.arg->dtype)
      return name + " is " + type_name(*h.arg) + " in the head and " + type_name(*b.arg) +
             " in the base";
    if (!h.arg->is_buffer) {
      if (h.scalar.size != b.scalar.size ||
          std::memcmp(h.scalar.bytes, b.scalar.bytes, h.scalar.size) != 0)
        return name + " is " + scalar_text(h) + " in the head and " + scalar_text(b) +
               " in the base";
      continue;
    }
    if (h.arg->role != b.arg->role)
      return name + " is " + role_name(h.arg->role) + " in the head and " + role_name(b.arg->role) +
             " in the base";
    if (h.count != b.count)
      return name + " has " + std::to_string(h.count) + " elements in the head and " +
             std::to_string(b.count) + " in the base";
    if (h.arg->role != ArgRole::kOutput && !same_init(h, b))
      return name + " is drawn differently (\"init\") in the head and the base";
  }
  return "";
}

}  // namespace kgate
