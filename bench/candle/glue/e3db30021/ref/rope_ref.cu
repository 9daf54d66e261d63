// Reference rotary embeddings in double on the GPU: rope_ref.cpp, one thread
// per rotated pair. Launch: grid [ceil_div(b * h * t * d / 2, 256)], block [256].
#include <cuda_bf16.h>
#include <stdint.h>

__device__ void rotate(const __nv_bfloat16* src, const __nv_bfloat16* cos, const __nv_bfloat16* sin,
                       double* dst, size_t i1, size_t i2, size_t ic) {
  const double x1 = __bfloat162float(src[i1]), x2 = __bfloat162float(src[i2]);
  const double c = __bfloat162float(cos[ic]), s = __bfloat162float(sin[ic]);
  dst[i1] = x1 * c - x2 * s;
  dst[i2] = x1 * s + x2 * c;
}

__device__ size_t pair_index() {
  return size_t(blockIdx.x) * blockDim.x + threadIdx.x;
}

extern "C" __global__ void rope_i_bf16_ref(const __nv_bfloat16* src, const __nv_bfloat16* cos,
                                           const __nv_bfloat16* sin, double* dst, uint32_t bh,
                                           uint32_t td, uint32_t stride_b) {
  const size_t p = pair_index();
  if (p >= size_t(bh) * td / 2) return;
  const size_t row = p / (td / 2), j = p % (td / 2);
  rotate(src, cos, sin, dst, row * td + 2 * j, row * td + 2 * j + 1,
         j + (stride_b ? row * td / stride_b * (td / 2) : 0));
}

extern "C" __global__ void rope_bf16_ref(const __nv_bfloat16* src, const __nv_bfloat16* cos,
                                         const __nv_bfloat16* sin, double* dst, uint32_t bh,
                                         uint32_t td, uint32_t d, uint32_t stride_b) {
  const size_t p = pair_index();
  if (p >= size_t(bh) * td / 2) return;
  const size_t row = p / (td / 2), ti = p % (td / 2) / (d / 2), j = p % (d / 2);
  const size_t i1 = row * td + ti * d + j;
  rotate(src, cos, sin, dst, i1, i1 + d / 2,
         ti * (d / 2) + j + (stride_b ? row * td / stride_b * (td / 2) : 0));
}

extern "C" __global__ void rope_thd_bf16_ref(const __nv_bfloat16* src, const __nv_bfloat16* cos,
                                             const __nv_bfloat16* sin, double* dst, uint32_t b,
                                             uint32_t t, uint32_t h, uint32_t d,
                                             uint32_t stride_b) {
  const size_t p = pair_index();
  if (p >= size_t(b) * t * h * d / 2) return;
  const size_t j = p % (d / 2), hi = p / (d / 2) % h, ti = p / (d / 2 * h) % t,
               bi = p / (size_t(d) / 2 * h * t);
  const size_t i1 = ((bi * t + ti) * h + hi) * d + j;
  rotate(src, cos, sin, dst, i1, i1 + d / 2,
         ti * (d / 2) + j + (stride_b ? bi * (size_t(t) * d / 2) : 0));
}
