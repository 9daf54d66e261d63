#pragma once
// The tunables the built-in tuner may move, as its context declares them:
// each tunable's values, its role where the manifest gives one
// (core/tunable_role.h) and the implementation's constraints, expressions
// over the tunables that every setting must meet ("BM % TM == 0").
//
// Invariant: valid() is false for any setting a constraint rejects or cannot
// evaluate (division by zero), so the tuner never proposes one; a constraint
// that does not parse (a record written by another version) rejects every
// setting but the defaults' own, which the loader checked.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expression.h"

namespace kgate {

// What a tunable controls, as the tuner orders its moves by it.
enum class Knob { kWidth, kReuse, kSplit, kWork, kRows, kBlock, kOther };
// From the declared role first ("tile_rows": reuse, "thread_tile_cols":
// work per thread, ...); without one, from the name (VEC, TILE, UNROLL,
// BLOCK, ...).
Knob knob_of(const std::string& name, const std::string& role);

using TunableSettings = std::map<std::string, int64_t>;

class TunableSpace {
 public:
  // From the context's "tunables" ({name: [values]}), "tunable_roles"
  // ({name: role}) and "constraints" ([expression text]).
  static TunableSpace from_context(const nlohmann::json& ctx);

  const std::map<std::string, std::vector<int64_t>>& declared() const { return declared_; }
  TunableSettings defaults() const;
  std::string role(const std::string& name) const;
  const std::vector<std::string>& constraint_texts() const { return constraint_texts_; }

  // Every constraint holds for `settings` (defaults fill the names it lacks).
  bool valid(const TunableSettings& settings) const;
  // The settings one step away from `from` in one tunable (the next smaller
  // or larger declared value) that meet every constraint.
  std::vector<TunableSettings> valid_single_steps(const TunableSettings& from) const;
  // The settings that change 2 to `max_changed` tunables by one step each
  // and meet every constraint, those changing fewer first: where one
  // tunable cannot move alone (BK up needs TN down), several move together.
  std::vector<TunableSettings> coordinated_steps(const TunableSettings& from,
                                                 int max_changed = 3) const;

 private:
  std::map<std::string, std::vector<int64_t>> declared_;  // as declared, default first
  std::map<std::string, std::string> roles_;
  std::vector<std::string> constraint_texts_;
  std::vector<Expression> constraints_;
  bool unparsed_constraint_ = false;
};

}  // namespace kgate
