// Reference SiLU in double, with the parameter list of candle's unary kernels
// (UNARY_OP in candle-kernels/src/unary.cu): out[i] = x / (1 + exp(-x)) for
// x the element at row-major index i of the tensor that info describes.
#include <kgate_host.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "strided.h"

namespace {

template <class T>
void silu(size_t numel, size_t num_dims, const size_t* info, const T* inp, double* out) {
  const size_t* strides = info ? info + num_dims : nullptr;
  for (size_t i = 0; i < numel; ++i) {
    const double x = double(float(inp[strided_offset(i, num_dims, info, strides)]));
    out[i] = x / (1.0 + std::exp(-x));
  }
}

}  // namespace

void usilu_f32_ref(size_t numel, size_t num_dims, const size_t* info, const float* inp,
                   double* out) {
  silu(numel, num_dims, info, inp, out);
}

void usilu_bf16_ref(size_t numel, size_t num_dims, const size_t* info, const kgate::bfloat16* inp,
                    double* out) {
  silu(numel, num_dims, info, inp, out);
}
