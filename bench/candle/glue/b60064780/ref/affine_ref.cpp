// Reference affine map in double, with the parameter list of candle's
// AFFINE_OP (candle-kernels/src/affine.cu): out[i] = x * mul + add.
#include <cstddef>

#include "strided.h"

void affine_f32_ref(size_t numel, size_t num_dims, const size_t* info, const float* inp,
                    double* out, float mul, float add) {
  const size_t* strides = info ? info + num_dims : nullptr;
  for (size_t i = 0; i < numel; ++i)
    out[i] = double(inp[strided_offset(i, num_dims, info, strides)]) * mul + add;
}
