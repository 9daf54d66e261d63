// Reference rotary embeddings in double, with the parameter lists of candle's
// rope kernels (ROPE_OP in candle-kernels/src/reduce.cu). src is (b, h, t, d)
// for rope_i (interleaved: each pair (2j, 2j + 1) of a row rotates by angle
// (t, j)) and rope (halves: (j, j + d / 2)), (b, t, h, d) for rope_thd; cos and
// sin are (t, d / 2).
#include <kgate_host.h>

#include <cstddef>
#include <cstdint>

namespace {

double as_double(kgate::bfloat16 x) {
  return double(float(x));
}

void rotate(const kgate::bfloat16* src, const kgate::bfloat16* cos, const kgate::bfloat16* sin,
            double* dst, size_t i1, size_t i2, size_t ic) {
  const double x1 = as_double(src[i1]), x2 = as_double(src[i2]);
  const double c = as_double(cos[ic]), s = as_double(sin[ic]);
  dst[i1] = x1 * c - x2 * s;
  dst[i2] = x1 * s + x2 * c;
}

}  // namespace

// bh = b * h rows of td = t * d elements.
void rope_i_bf16_ref(const kgate::bfloat16* src, const kgate::bfloat16* cos,
                     const kgate::bfloat16* sin, double* dst, uint32_t bh, uint32_t td) {
  for (size_t row = 0; row < bh; ++row)
    for (size_t j = 0; j < td / 2; ++j)
      rotate(src, cos, sin, dst, row * td + 2 * j, row * td + 2 * j + 1, j);
}
