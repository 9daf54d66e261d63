// Reference select, with the parameter list of candle's WHERE_OP
// (candle-kernels/src/ternary.cu): out[i] = ids[i] ? t[i] : f[i], each of the
// three read through its own strides (info: dims, then the strides of ids, t
// and f).
#include <cstddef>
#include <cstdint>

#include "strided.h"

void where_u8_f32_ref(size_t numel, size_t num_dims, const size_t* info, const uint8_t* ids,
                      const float* t, const float* f, double* out) {
  const size_t* dims = info;
  for (size_t i = 0; i < numel; ++i) {
    const bool pick = ids[strided_offset(i, num_dims, dims, info + num_dims)] != 0;
    out[i] = pick ? t[strided_offset(i, num_dims, dims, info + 2 * num_dims)]
                  : f[strided_offset(i, num_dims, dims, info + 3 * num_dims)];
  }
}
