// Reference SiLU in double on the GPU: unary_ref.cpp, one thread per element.
// Launch: grid [ceil_div(numel, 256)], block [256].
#include <cuda_bf16.h>

#include "strided.h"

template <class T>
__device__ void silu(size_t numel, size_t num_dims, const size_t* info, const T* inp, double* out) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= numel) return;
  const size_t* strides = info ? info + num_dims : nullptr;
  const double x = double(float(inp[strided_offset(i, num_dims, info, strides)]));
  out[i] = x / (1.0 + exp(-x));
}

extern "C" __global__ void usilu_f32_ref(size_t numel, size_t num_dims, const size_t* info,
                                         const float* inp, double* out) {
  silu(numel, num_dims, info, inp, out);
}

extern "C" __global__ void usilu_bf16_ref(size_t numel, size_t num_dims, const size_t* info,
                                          const __nv_bfloat16* inp, double* out) {
  silu(numel, num_dims, info, inp, out);
}
