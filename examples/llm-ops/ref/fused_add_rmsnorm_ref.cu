// Reference fused add + RMSNorm in double on the GPU: the host reference
// (fused_add_rmsnorm_ref.cpp) with one block per row. Both buffers are in/out
// in double. Launch: grid [rows], block [256].
#include "ref_block.cuh"

extern "C" __global__ void fused_add_rmsnorm_ref(double* input, double* residual,
                                                 const __half* weight, int rows, int cols,
                                                 float eps) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  double* in = input + row * cols;
  double* res = residual + row * cols;
  double sum = 0;
  for (int c = threadIdx.x; c < cols; c += kRefThreads) {
    res[c] = in[c] + res[c];
    sum += res[c] * res[c];
  }
  sum = ref_block_sum(sum);
  const double scale = 1.0 / sqrt(sum / cols + static_cast<double>(eps));
  for (int c = threadIdx.x; c < cols; c += kRefThreads)
    in[c] = res[c] * scale * as_double(weight[c]);
}
