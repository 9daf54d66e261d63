#include "runner/compile_policy.h"

#include <string_view>

namespace kgate {

Status check_numerics_flags(const std::vector<std::string>& flags, bool allow_fast_math) {
  if (allow_fast_math) return {};
  static constexpr std::string_view kRefused[] = {"-ffast-math",
                                                  "-Ofast",
                                                  "-funsafe-math-optimizations",
                                                  "-ffinite-math-only",
                                                  "-fno-signed-zeros",
                                                  "-freciprocal-math",
                                                  "-fassociative-math",
                                                  "--use_fast_math",
                                                  "-use_fast_math",
                                                  "--ftz=true",
                                                  "-ftz=true",
                                                  "--prec-div=false",
                                                  "-prec-div=false",
                                                  "--prec-sqrt=false",
                                                  "-prec-sqrt=false"};
  for (const std::string& flag : flags) {
    for (std::string_view refused : kRefused) {
      if (flag == refused) {
        return Error::bad_input(
            "compiler flag '" + flag +
            "' changes numerics and is refused; set "
            "\"compile\": {\"allow_fast_math\": true} in kgate.json to allow it");
      }
    }
    if (flag.find("fast_math") != std::string::npos || flag.find("fast-math") != std::string::npos)
      return Error::bad_input("compiler flag '" + flag + "' looks like fast math and is refused");
  }
  return {};
}

}  // namespace kgate
