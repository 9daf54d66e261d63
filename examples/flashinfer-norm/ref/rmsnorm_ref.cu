// Reference RMSNorm in double on the GPU: the host reference (rmsnorm_ref.cpp)
// with one block per row. Launch: grid [batch], block [256].
#include "ref_block.cuh"

template <class T>
__device__ void rmsnorm_row(const T* input, const T* weight, double* output, int d,
                            int stride_input, int stride_output, float weight_bias, float eps,
                            int rows) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const T* x = input + row * stride_input;
  double sum = 0;
  for (int c = threadIdx.x; c < d; c += kRefThreads) sum += as_double(x[c]) * as_double(x[c]);
  sum = ref_block_sum(sum);
  const double scale = 1.0 / sqrt(sum / d + static_cast<double>(eps));
  for (int c = threadIdx.x; c < d; c += kRefThreads)
    output[row * stride_output + c] =
        as_double(x[c]) * scale * (static_cast<double>(weight_bias) + as_double(weight[c]));
}

extern "C" __global__ void rmsnorm_f16_ref(const __half* input, const __half* weight,
                                           double* output, int d, int stride_input,
                                           int stride_output, float weight_bias, float eps,
                                           int rows) {
  rmsnorm_row(input, weight, output, d, stride_input, stride_output, weight_bias, eps, rows);
}

extern "C" __global__ void rmsnorm_bf16_ref(const __nv_bfloat16* input, const __nv_bfloat16* weight,
                                            double* output, int d, int stride_input,
                                            int stride_output, float weight_bias, float eps,
                                            int rows) {
  rmsnorm_row(input, weight, output, d, stride_input, stride_output, weight_bias, eps, rows);
}
