// Reference RMSNorm in double on the GPU: the host reference (rmsnorm_ref.cpp)
// with one block per row. Launch: grid [rows], block [256].
#include "ref_block.cuh"

extern "C" __global__ void rmsnorm_ref(double* out, const __half* x, const __half* weight, int rows,
                                       int cols, float eps) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const __half* xr = x + row * cols;
  double sum = 0;
  for (int c = threadIdx.x; c < cols; c += kRefThreads) {
    double v = as_double(xr[c]);
    sum += v * v;
  }
  sum = ref_block_sum(sum);
  const double scale = 1.0 / sqrt(sum / cols + static_cast<double>(eps));
  for (int c = threadIdx.x; c < cols; c += kRefThreads)
    out[row * cols + c] = as_double(xr[c]) * scale * as_double(weight[c]);
}
