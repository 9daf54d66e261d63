#pragma once
// A small host kernel repository (vector scale) for the gate's command tests.
namespace kgate::testing {

// A kernel doing enough work per call to be timed on a CPU; PASSES (from
// common.h) repeats it, so a header change can make it slower.
inline const char* kKernel = R"(// Scales a vector (host kernel for the gate tests).
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#include "common.h"

void scale(float* out, const float* x, int32_t n) {
  for (int p = 0; p < PASSES; ++p) {
    for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f;
    asm volatile("" : : "r"(out) : "memory");  // every pass really stores
  }
}
)";

inline const char* kWrongKernel = R"(#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#include "common.h"

void scale(float* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(x[i] * x[i] + 1.0f) * 2.0f + (i == n / 2 ? 1.0f : 0.0f);
}
)";

inline const char* kReference = R"(#include <kgate_host.h>

#include <cmath>
#include <cstdint>

void scale_ref(double* out, const float* x, int32_t n) {
  for (int32_t i = 0; i < n; ++i) out[i] = std::sqrt(double(x[i]) * x[i] + 1.0) * 2.0;
}
)";

// Policy generous for a shared CPU (10%), budget small so a run takes seconds.
inline const char* kManifest = R"({
  "kernels": [{
    "name": "scale",
    "impl": {"host": {"source": "src/scale.cpp", "entry": "scale", "compile": {"include": ["src/include"]}}},
    "args": [
      {"name": "out", "type": "float32*", "count": "n", "role": "output"},
      {"name": "x",   "type": "float32*", "count": "n"},
      {"name": "n",   "type": "int32",    "value": "n"}
    ],
    "shapes": [
      {"name": "small", "phase": "decode",  "n": 8192},
      {"name": "large", "phase": "prefill", "n": 131072}
    ],
    "reference": {"source": "ref/scale_ref.cpp", "entry": "scale_ref"},
    "tolerance": {"atol": 1e-4, "rtol": 1e-4}
  }],
  "gate": {"max_regression": 0.10, "min_improvement": 0.10, "confidence": 0.99, "budget_s": 0.3}
}
)";

}  // namespace kgate::testing
