#pragma once
// Compiler flags that change numerics (fast math, flush-to-zero, approximate
// division) are refused unless the manifest allows them: a kernel must not
// win the gate by computing a different function.
#include <string>
#include <vector>

#include "core/status.h"

namespace kgate {

// The first refused flag, with why, or success.
Status check_numerics_flags(const std::vector<std::string>& flags, bool allow_fast_math);

}  // namespace kgate
