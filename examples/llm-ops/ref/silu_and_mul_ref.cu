// Reference SiLU-gated product in double on the GPU: the host reference
// (silu_and_mul_ref.cpp), one thread per output.
// Launch: grid [ceil_div(d, 256), rows], block [256].
#include "ref_block.cuh"

extern "C" __global__ void silu_and_mul_ref(double* out, const __half* input, int rows, int d) {
  const long long row = blockIdx.y;
  const long long i = static_cast<long long>(blockIdx.x) * kRefThreads + threadIdx.x;
  if (row >= rows || i >= d) return;
  const double g = as_double(input[row * 2 * d + i]);
  const double up = as_double(input[row * 2 * d + d + i]);
  out[row * d + i] = g / (1.0 + exp(-g)) * up;
}
