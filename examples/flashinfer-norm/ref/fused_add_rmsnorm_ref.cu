// Reference fused add + RMSNorm in double on the GPU: the host reference
// (fused_add_rmsnorm_ref.cpp) with one block per row. Both buffers are in/out
// in double. Launch: grid [batch], block [256].
#include "ref_block.cuh"

extern "C" __global__ void fused_add_rmsnorm_f16_ref(double* input, double* residual,
                                                     const __half* weight, int d, int stride_input,
                                                     int stride_residual, float weight_bias,
                                                     float eps, int rows) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  double* in = input + row * stride_input;
  double* res = residual + row * stride_residual;
  double sum = 0;
  for (int c = threadIdx.x; c < d; c += kRefThreads) {
    res[c] = in[c] + res[c];
    sum += res[c] * res[c];
  }
  sum = ref_block_sum(sum);
  const double scale = 1.0 / sqrt(sum / d + static_cast<double>(eps));
  for (int c = threadIdx.x; c < d; c += kRefThreads)
    in[c] = res[c] * scale * (static_cast<double>(weight_bias) + as_double(weight[c]));
}
