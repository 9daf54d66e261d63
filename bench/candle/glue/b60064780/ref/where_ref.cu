// Reference select on the GPU: where_ref.cpp, one thread per element.
// Launch: grid [ceil_div(numel, 256)], block [256].
#include <stdint.h>

#include "strided.h"

extern "C" __global__ void where_u8_f32_ref(size_t numel, size_t num_dims, const size_t* info,
                                            const uint8_t* ids, const float* t, const float* f,
                                            double* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  const size_t* dims = info;
  const bool pick = ids[strided_offset(i, num_dims, dims, info + num_dims)] != 0;
  out[i] = pick ? t[strided_offset(i, num_dims, dims, info + 2 * num_dims)]
                : f[strided_offset(i, num_dims, dims, info + 3 * num_dims)];
}
