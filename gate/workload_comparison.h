#pragma once
// Whether a candidate's workload output agrees with the base's, field by
// field, by the manifest's rules (core/workload_spec.h): "equal" for token
// ids and anything discrete, "close" (atol + rtol * |base|, NaN never passes)
// for logits and probabilities.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/workload_spec.h"

namespace kgate {

struct FieldComparison {
  std::string field, rule;
  bool passed = false;
  std::string detail;  // what differs, where ("tokens differ from index 5: 1234 vs 999")
  size_t compared = 0, mismatches = 0;
  long first_mismatch = -1;  // index into the array; -1 none (or not an array)
  double max_abs_error = 0, max_rel_error = 0;

  nlohmann::json to_json() const;
};

struct OutputComparisonResult {
  bool matched = false;  // every field passed
  std::vector<FieldComparison> fields;

  std::string summary()
      const;  // "outputs match (tokens equal, logits within ...)" or the first failure
  nlohmann::json to_json() const;
};

OutputComparisonResult compare_workload_outputs(const nlohmann::json& base,
                                                const nlohmann::json& candidate,
                                                const std::vector<OutputComparison>& rules);

}  // namespace kgate
