// SiLU-gated product on the CPU (the MLP's activation), written plainly.
// input is [rows, 2 * d]: the gate half, then the up half. out[r, i] = silu(gate) * up.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

#ifndef UNROLL  // elements per inner iteration (tunable)
#define UNROLL 1
#endif

using kgate::half;

void silu_and_mul(half* out, const half* input, int32_t rows, int32_t d) {
  for (int32_t r = 0; r < rows; ++r) {
    const half* gate = input + static_cast<int64_t>(r) * 2 * d;
    const half* up = gate + d;
    half* out_row = out + static_cast<int64_t>(r) * d;
    int32_t i = 0;
    for (; i + UNROLL <= d; i += UNROLL)
      for (int k = 0; k < UNROLL; ++k) {
        float g = gate[i + k];
        out_row[i + k] = half(g / (1.0f + std::exp(-g)) * float(up[i + k]));
      }
    for (; i < d; ++i) {
      float g = gate[i];
      out_row[i] = half(g / (1.0f + std::exp(-g)) * float(up[i]));
    }
  }
}
