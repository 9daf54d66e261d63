#include "runner/side_compatibility.h"

#include <algorithm>
#include <map>

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
    case ArgRole::kScratch:
      return "scratch";
  }
  return "?";
}

std::string type_name(const Arg& a) {
  if (a.is_struct) return "struct";
  return std::string(dtype_name(a.dtype)) + (a.is_buffer ? "*" : "");
}

// The name a leaf is matched by: its own, or without the struct it sits in
// ("params.x" and "x" are one buffer that moved into a params struct).
std::string last_component(const std::string& name) {
  size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Index of the buffer leaf of `plan` that `name` names: the same name, else
// the only one with the same last component; -1 when none.
int find_buffer(const LaunchPlan& plan, const std::string& name) {
  for (size_t i = 0; i < plan.args.size(); ++i)
    if (plan.args[i].arg->is_buffer && plan.args[i].arg->name == name) return static_cast<int>(i);
  int found = -1;
  for (size_t i = 0; i < plan.args.size(); ++i) {
    if (!plan.args[i].arg->is_buffer ||
        last_component(plan.args[i].arg->name) != last_component(name))
      continue;
    if (found >= 0) return -1;  // ambiguous: no match
    found = static_cast<int>(i);
  }
  return found;
}

std::string buffer_difference(const ArgPlan& h, const ArgPlan& b) {
  const std::string name = "buffer '" + h.arg->name + "'";
  if (h.arg->dtype != b.arg->dtype)
    return name + " is " + type_name(*h.arg) + " in the head and " + type_name(*b.arg) +
           " in the base";
  if (h.null != b.null)
    return name + " is " + (h.null ? "NULL" : "a buffer") + " in the head and " +
           (b.null ? "NULL" : "a buffer") + " in the base";
  if (h.arg->role != b.arg->role)
    return name + " is " + role_name(h.arg->role) + " in the head and " + role_name(b.arg->role) +
           " in the base";
  if (h.count != b.count)
    return name + " has " + std::to_string(h.count) + " elements in the head and " +
           std::to_string(b.count) + " in the base";
  if (h.drawn() && describe_contents(h) != describe_contents(b))
    return name + " is made differently (\"init\") in the head and the base";
  return "";
}

// An input that describes the data rather than being data (a descriptor of
// dims and strides, an offsets table): given contents, or NULL. Two sides may
// each have their own, as a scalar: candle's launcher began passing NULL
// for a contiguous tensor's descriptor in the same change that taught its
// kernels an `info == nullptr` fast path.
bool describes(const ArgPlan& a) {
  if (!a.arg->is_buffer || a.arg->role != ArgRole::kInput) return false;
  return a.null || a.arg->init.distribution == InitSpec::Distribution::kValues ||
         a.arg->init.distribution == InitSpec::Distribution::kFormula;
}

// Renumbers `params`' leaves through `index`.
std::vector<ParamPlan> renumbered(std::vector<ParamPlan> params, const std::vector<int>& index) {
  for (ParamPlan& p : params) {
    if (p.leaf >= 0) p.leaf = index[p.leaf];
    for (auto& [offset, leaf] : p.pointers) leaf = index[leaf];
  }
  return params;
}

// A plan made by hand lists no params: its leaves are its parameters.
std::vector<ParamPlan> params_of(const LaunchPlan& plan) {
  if (!plan.params.empty()) return plan.params;
  std::vector<ParamPlan> params;
  for (size_t i = 0; i < plan.args.size(); ++i) params.push_back({static_cast<int>(i), {}, {}});
  return params;
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "'" : i + 1 == names.size() ? " and '" : ", '") + names[i] + "'";
  return out;
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

std::string align_sides(const LaunchPlan& head, const LaunchPlan& base, AlignedSides& out) {
  // Where each base leaf goes in the shared list.
  std::vector<int> index(base.args.size(), -1);
  std::vector<bool> matched(head.args.size(), false);
  for (size_t i = 0; i < base.args.size(); ++i) {
    const ArgPlan& b = base.args[i];
    if (!b.arg->is_buffer) continue;
    const int h = find_buffer(head, b.arg->name);
    if (h < 0) continue;
    if (std::string why = buffer_difference(head.args[h], b); !why.empty()) {
      if (!describes(head.args[h]) || !describes(b)) return why;
      matched[h] = true;  // each side its own, as a scalar: the base's is appended below
      continue;
    }
    index[i] = h;
    matched[h] = true;
  }
  // Renamed buffers: those left on both sides, paired in order when each
  // pair agrees in everything but the name.
  std::vector<size_t> head_left, base_left;
  for (size_t h = 0; h < head.args.size(); ++h)
    if (head.args[h].arg->is_buffer && !matched[h] && !head.args[h].arg->one_sided)
      head_left.push_back(h);
  for (size_t i = 0; i < base.args.size(); ++i)
    if (base.args[i].arg->is_buffer && index[i] < 0 && !base.args[i].arg->one_sided)
      base_left.push_back(i);
  if (!head_left.empty() && head_left.size() == base_left.size()) {
    bool pairs = true;
    for (size_t k = 0; k < head_left.size() && pairs; ++k)
      pairs = buffer_difference(head.args[head_left[k]], base.args[base_left[k]]).empty();
    if (pairs) {
      for (size_t k = 0; k < head_left.size(); ++k) {
        index[base_left[k]] = static_cast<int>(head_left[k]);
        matched[head_left[k]] = true;
      }
    }
  }
  for (size_t h = 0; h < head.args.size(); ++h) {
    const ArgPlan& a = head.args[h];
    if (a.arg->is_buffer && !matched[h] && !a.arg->one_sided && !a.null)
      return "the head's buffer '" + a.arg->name +
             "' has no match in the base (renamed? give it the base's name; a buffer only the "
             "head takes: \"one_sided\": true)";
  }
  out.head = head;
  out.head.params = params_of(head);
  out.base = base;
  out.base.args = head.args;
  for (ArgPlan& a : out.base.args) a.used = false;
  for (size_t i = 0; i < base.args.size(); ++i) {
    const ArgPlan& b = base.args[i];
    if (index[i] >= 0) {
      out.base.args[index[i]].used = true;
      continue;
    }
    if (b.arg->is_buffer && b.arg->role == ArgRole::kInOut && !b.arg->one_sided && !b.null)
      return "the base's buffer '" + b.arg->name +
             "' (inout) has no match in the head: a buffer the head no longer takes can be "
             "read, written as an output or used as scratch by the base";
    // The base's own: its scalars, and buffers the head does not have, which
    // the head's reference cannot judge.
    index[i] = static_cast<int>(out.base.args.size());
    ArgPlan own = b;
    own.judged = false;
    ArgPlan unused = own;
    unused.used = false;
    out.base.args.push_back(std::move(own));
    out.head.args.push_back(std::move(unused));
  }
  out.base.params = renumbered(params_of(base), index);
  return "";
}

std::string signature_change(const Kernel& head, const Kernel& base) {
  std::vector<std::pair<std::string, std::string>> h, b;  // (name, type) per parameter
  for (const Arg* a : head.leaves()) h.emplace_back(a->name, type_name(*a));
  for (const Arg* a : base.leaves()) b.emplace_back(a->name, type_name(*a));
  if (h == b && head.args.size() == base.args.size()) return "";
  std::map<std::string, std::string> base_types(b.begin(), b.end()), head_types(h.begin(), h.end());
  std::vector<std::string> added, dropped, retyped;
  for (const auto& [name, type] : h) {
    auto it = base_types.find(name);
    if (it == base_types.end())
      added.push_back(name + "' (" + type);
    else if (it->second != type)
      retyped.push_back(name + "' (" + it->second + " to " + type);
  }
  for (const auto& [name, type] : b)
    if (!head_types.count(name)) dropped.push_back(name);
  std::vector<std::string> parts;
  auto with_types = [](const std::vector<std::string>& items) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i)
      out += (i == 0 ? "'" : i + 1 == items.size() ? " and '" : ", '") + items[i] + ")";
    return out;
  };
  if (!added.empty())
    parts.push_back("the head adds " +
                    std::string(added.size() == 1 ? "parameter " : "parameters ") +
                    with_types(added));
  if (!dropped.empty()) parts.push_back("drops " + quoted_list(dropped));
  if (!retyped.empty()) parts.push_back("changes the type of " + with_types(retyped));
  // The common parameters in another order.
  std::vector<std::string> common_h, common_b;
  for (const auto& [name, type] : h)
    if (base_types.count(name)) common_h.push_back(name);
  for (const auto& [name, type] : b)
    if (head_types.count(name)) common_b.push_back(name);
  if (common_h != common_b) parts.push_back("reorders the parameters");
  if (head.args.size() != base.args.size() && parts.empty())
    parts.push_back("groups the parameters differently (structs)");
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : "; ") + parts[i];
  if (out.rfind("drops", 0) == 0 || out.rfind("changes", 0) == 0 || out.rfind("reorders", 0) == 0 ||
      out.rfind("groups", 0) == 0)
    out = "the head " + out;
  return out;
}

}  // namespace kgate
