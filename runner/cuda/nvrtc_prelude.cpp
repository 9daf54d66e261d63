#include "runner/cuda/nvrtc_prelude.h"

namespace kgate::cuda {

const char* const kNvrtcPreludeName = "kgate_nvrtc_prelude.h";

namespace {

// Pre-included in every NVRTC compile. Values are glibc's (<math.h>, <float.h>);
// int64_t is `long long` as libcu++ declares it under NVRTC, so the two never clash.
const char* const kPrelude = R"(// kgate: nvcc's implicit environment for NVRTC
#ifndef KGATE_NVRTC_PRELUDE
#define KGATE_NVRTC_PRELUDE
#if __has_include(<cuda/std/climits>) && __has_include(<cuda/std/cstdint>)
#include <cuda/std/climits>
#include <cuda/std/cstdint>
#else
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define SHRT_MIN (-SHRT_MAX - 1)
#define SHRT_MAX 0x7fff
#define USHRT_MAX 0xffff
#define INT_MIN (-INT_MAX - 1)
#define INT_MAX 0x7fffffff
#define UINT_MAX 0xffffffffU
#define LONG_MIN (-LONG_MAX - 1L)
#define LONG_MAX 0x7fffffffffffffffL
#define ULONG_MAX 0xffffffffffffffffUL
#define LLONG_MIN (-LLONG_MAX - 1LL)
#define LLONG_MAX 0x7fffffffffffffffLL
#define ULLONG_MAX 0xffffffffffffffffULL
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long long intptr_t;
typedef unsigned long long uintptr_t;
#endif
typedef unsigned int uint;
typedef unsigned short ushort;
typedef unsigned long ulong;
#ifndef INFINITY
#define INFINITY (__builtin_bit_cast(float, 0x7f800000U))
#endif
#ifndef NAN
#define NAN (__builtin_bit_cast(float, 0x7fc00000U))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ULL))
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
#ifndef M_PIf
#define M_Ef 2.7182818284590452354f
#define M_LOG2Ef 1.4426950408889634074f
#define M_LOG10Ef 0.43429448190325182765f
#define M_LN2f 0.69314718055994530942f
#define M_LN10f 2.30258509299404568402f
#define M_PIf 3.14159265358979323846f
#define M_PI_2f 1.57079632679489661923f
#define M_PI_4f 0.78539816339744830962f
#define M_1_PIf 0.31830988618379067154f
#define M_2_PIf 0.63661977236758134308f
#define M_2_SQRTPIf 1.12837916709551257390f
#define M_SQRT2f 1.41421356237309504880f
#define M_SQRT1_2f 0.70710678118654752440f
#endif
namespace std {
using ::abs; using ::fabs; using ::sqrt; using ::cbrt; using ::hypot; using ::exp; using ::exp2;
using ::expm1; using ::log; using ::log2; using ::log10; using ::log1p; using ::logb;
using ::ilogb; using ::pow; using ::sin; using ::cos; using ::tan; using ::asin; using ::acos;
using ::atan; using ::atan2; using ::sinh; using ::cosh; using ::tanh; using ::asinh;
using ::acosh; using ::atanh; using ::erf; using ::erfc; using ::tgamma; using ::lgamma;
using ::floor; using ::ceil; using ::round; using ::trunc; using ::rint; using ::nearbyint;
using ::lrint; using ::llrint; using ::lround; using ::fmod; using ::remainder; using ::fma;
using ::fmax; using ::fmin; using ::fdim; using ::copysign; using ::nextafter; using ::ldexp;
using ::frexp; using ::modf; using ::scalbn; using ::isnan; using ::isinf; using ::isfinite;
using ::signbit;
}
#endif
)";

// <assert.h> is re-read at every #include in C, so NDEBUG defined just
// before it counts; NVRTC's own assert (__assertfail, a device trap) otherwise.
const char* const kAssert = R"(// kgate: <assert.h> for NVRTC
#undef assert
#ifdef NDEBUG
#define assert(e) (static_cast<void>(0))
#else
#define assert(e) ((e) ? static_cast<void>(0) : __assertfail(#e, __FILE__, __LINE__, __PRETTY_FUNCTION__, sizeof(char)))
#endif
)";

const char* const kFloat = R"(// kgate: <float.h> for NVRTC (glibc's values)
#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define FLT_DIG 6
#define FLT_MIN_EXP (-125)
#define FLT_MIN_10_EXP (-37)
#define FLT_MAX_EXP 128
#define FLT_MAX_10_EXP 38
#define FLT_MAX 3.40282346638528859811704183484516925e+38F
#define FLT_MIN 1.17549435082228750796873653722224568e-38F
#define FLT_EPSILON 1.19209289550781250000000000000000000e-7F
#define FLT_TRUE_MIN 1.40129846432481707092372958328991613e-45F
#define DBL_MANT_DIG 53
#define DBL_DIG 15
#define DBL_MIN_EXP (-1021)
#define DBL_MIN_10_EXP (-307)
#define DBL_MAX_EXP 1024
#define DBL_MAX_10_EXP 308
#define DBL_MAX 1.79769313486231570814527423731704357e+308
#define DBL_MIN 2.22507385850720138309023271733240406e-308
#define DBL_EPSILON 2.22044604925031308084726333618164062e-16
#define DBL_TRUE_MIN 4.94065645841246544176568792868221372e-324
#define DECIMAL_DIG 21
#endif
)";

const char* const kStdintStd = R"(// kgate: <cstdint> for NVRTC
namespace std {
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t; using ::uint8_t;
using ::uint16_t; using ::uint32_t; using ::uint64_t; using ::intptr_t; using ::uintptr_t;
}
)";

std::vector<InMemoryHeader> make_headers() {
  const std::string in_prelude =
      "// kgate: in NVRTC, what this header gives comes with the prelude\n";
  std::vector<InMemoryHeader> h = {{kNvrtcPreludeName, kPrelude}};
  for (const char* name : {"math.h", "cmath", "limits.h", "climits", "stdint.h", "stdio.h"})
    h.push_back({name, in_prelude});
  h.push_back({"assert.h", kAssert});
  h.push_back({"cassert", kAssert});
  h.push_back({"float.h", kFloat});
  h.push_back({"cfloat", kFloat});
  h.push_back({"cstdint", kStdintStd});
  // Device code can call printf, malloc, free, memcpy and memset (NVRTC
  // declares them); the rest of the C library does not exist on the device.
  h.push_back({"cstdio", "namespace std { using ::printf; }\n"});
  h.push_back({"stdlib.h", "// kgate: malloc and free are NVRTC built-ins\n"});
  h.push_back({"cstdlib", "namespace std { using ::malloc; using ::free; using ::abs; }\n"});
  h.push_back({"string.h", "// kgate: memcpy and memset are NVRTC built-ins\n"});
  h.push_back({"cstring", "namespace std { using ::memcpy; using ::memset; }\n"});
  h.push_back({"stddef.h", "// kgate: size_t and ptrdiff_t are NVRTC built-ins\n"});
  h.push_back({"cstddef", "namespace std { using ::size_t; using ::ptrdiff_t; }\n"});
  return h;
}

}  // namespace

const std::vector<InMemoryHeader>& nvrtc_headers() {
  static const std::vector<InMemoryHeader> headers = make_headers();
  return headers;
}

const std::string& nvrtc_headers_fingerprint() {
  static const std::string text = [] {
    std::string t;
    for (const InMemoryHeader& h : nvrtc_headers()) t += h.name + "\n" + h.text + "\n";
    return t;
  }();
  return text;
}

}  // namespace kgate::cuda
