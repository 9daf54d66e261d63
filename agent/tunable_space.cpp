#include "agent/tunable_space.h"

#include <algorithm>
#include <cctype>
#include <functional>

namespace kgate {

Knob knob_of(const std::string& name, const std::string& role) {
  static const std::map<std::string, Knob> by_role = {
      {"block_size", Knob::kBlock},      {"rows_per_block", Knob::kRows},
      {"tile_rows", Knob::kReuse},       {"tile_cols", Knob::kReuse},
      {"tile_k", Knob::kReuse},          {"thread_tile_rows", Knob::kWork},
      {"thread_tile_cols", Knob::kWork}, {"items_per_thread", Knob::kWork},
      {"unroll", Knob::kWork},           {"vector_width", Knob::kWidth},
      {"split", Knob::kSplit},           {"other", Knob::kOther}};
  if (auto it = by_role.find(role); it != by_role.end()) return it->second;
  // The order of the checks matters: ROWS_PER_BLOCK is about rows,
  // BATCH_TILE about reuse, not blocks or work.
  std::string n = name;
  for (char& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  auto has = [&](const char* w) { return n.find(w) != std::string::npos; };
  if (has("VEC") || has("WIDTH")) return Knob::kWidth;
  if (has("SPLIT") || has("CLUSTER")) return Knob::kSplit;
  if (has("BATCH") || has("TILE") || has("REUSE")) return Knob::kReuse;
  if (has("ROWS") || has("PER_BLOCK")) return Knob::kRows;
  for (const char* w : {"UNROLL", "ACCUM", "ELEM", "ITEMS", "PER_THREAD", "ILP"})
    if (has(w)) return Knob::kWork;
  if (has("BLOCK") || has("THREADS") || has("WARPS")) return Knob::kBlock;
  return Knob::kOther;
}

TunableSpace TunableSpace::from_context(const nlohmann::json& ctx) {
  TunableSpace space;
  if (auto t = ctx.find("tunables"); t != ctx.end() && t->is_object())
    for (const auto& [name, values] : t->items()) {
      std::vector<int64_t> list;
      if (values.is_array())
        for (const auto& v : values)
          if (v.is_number_integer()) list.push_back(v.get<int64_t>());
      if (!list.empty()) space.declared_[name] = std::move(list);
    }
  if (auto r = ctx.find("tunable_roles"); r != ctx.end() && r->is_object())
    for (const auto& [name, role] : r->items())
      if (role.is_string()) space.roles_[name] = role.get<std::string>();
  if (auto c = ctx.find("constraints"); c != ctx.end() && c->is_array())
    for (const auto& text : *c) {
      if (!text.is_string()) continue;
      space.constraint_texts_.push_back(text.get<std::string>());
      auto e = Expression::parse(text.get<std::string>());
      if (e.ok())
        space.constraints_.push_back(std::move(e.value()));
      else
        space.unparsed_constraint_ = true;
    }
  return space;
}

TunableSettings TunableSpace::defaults() const {
  TunableSettings out;
  for (const auto& [name, values] : declared_) out[name] = values.front();
  return out;
}

std::string TunableSpace::role(const std::string& name) const {
  auto it = roles_.find(name);
  return it == roles_.end() ? "" : it->second;
}

bool TunableSpace::valid(const TunableSettings& settings) const {
  Variables all;
  for (const auto& [name, values] : declared_) all[name] = values.front();
  for (const auto& [name, value] : settings) all[name] = value;
  if (unparsed_constraint_ && settings != defaults()) return false;
  for (const Expression& c : constraints_) {
    auto holds = c.evaluate(all);
    if (!holds.ok() || *holds == 0) return false;
  }
  return true;
}

namespace {

// The declared values of one tunable, sorted, and where `value` is among them.
struct Axis {
  std::string name;
  std::vector<int64_t> sorted;
  long at = -1;
};

std::vector<Axis> axes_at(const std::map<std::string, std::vector<int64_t>>& declared,
                          const TunableSettings& from) {
  std::vector<Axis> axes;
  for (const auto& [name, values] : declared) {
    Axis a{name, values, -1};
    std::sort(a.sorted.begin(), a.sorted.end());
    a.sorted.erase(std::unique(a.sorted.begin(), a.sorted.end()), a.sorted.end());
    auto it = from.find(name);
    int64_t value = it == from.end() ? values.front() : it->second;
    auto pos = std::find(a.sorted.begin(), a.sorted.end(), value);
    if (pos == a.sorted.end()) continue;
    a.at = pos - a.sorted.begin();
    axes.push_back(std::move(a));
  }
  return axes;
}

}  // namespace

std::vector<TunableSettings> TunableSpace::valid_single_steps(const TunableSettings& from) const {
  std::vector<TunableSettings> out;
  for (const Axis& a : axes_at(declared_, from))
    for (long to : {a.at - 1, a.at + 1}) {
      if (to < 0 || to >= static_cast<long>(a.sorted.size())) continue;
      TunableSettings s = from;
      s[a.name] = a.sorted[to];
      if (valid(s)) out.push_back(std::move(s));
    }
  return out;
}

std::vector<TunableSettings> TunableSpace::coordinated_steps(const TunableSettings& from,
                                                             int max_changed) const {
  const std::vector<Axis> axes = axes_at(declared_, from);
  std::vector<TunableSettings> out;
  // Depth-first over the axes in name order: each axis stays, steps down or
  // steps up; kept are the settings with k changes, for k = 2, 3, ...
  for (int changes = 2; changes <= max_changed; ++changes) {
    TunableSettings s = from;
    std::function<void(size_t, int)> walk = [&](size_t i, int left) {
      if (left == 0) {
        if (valid(s)) out.push_back(s);
        return;
      }
      if (i == axes.size() || static_cast<int>(axes.size() - i) < left) return;
      walk(i + 1, left);
      const Axis& a = axes[i];
      for (long to : {a.at - 1, a.at + 1}) {
        if (to < 0 || to >= static_cast<long>(a.sorted.size())) continue;
        s[a.name] = a.sorted[to];
        walk(i + 1, left - 1);
        s[a.name] = a.sorted[a.at];
      }
    };
    walk(0, changes);
  }
  return out;
}

}  // namespace kgate
