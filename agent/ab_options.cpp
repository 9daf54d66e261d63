#include "agent/ab_options.h"

#include <algorithm>

namespace kgate {

bool AbOptions::selects(const Shape& shape) const {
  auto has = [](const std::vector<std::string>& names, const std::string& name) {
    return names.empty() || std::find(names.begin(), names.end(), name) != names.end();
  };
  return has(shapes, shape.name) && has(phases, shape.phase);
}

}  // namespace kgate
