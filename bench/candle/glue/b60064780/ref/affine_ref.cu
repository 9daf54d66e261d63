// Reference affine map in double on the GPU: affine_ref.cpp, one thread per
// element. Launch: grid [ceil_div(numel, 256)], block [256].
#include "strided.h"

extern "C" __global__ void affine_f32_ref(size_t numel, size_t num_dims, const size_t* info,
                                          const float* inp, double* out, float mul, float add) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  const size_t* strides = info ? info + num_dims : nullptr;
  out[i] = double(inp[strided_offset(i, num_dims, info, strides)]) * mul + add;
}
