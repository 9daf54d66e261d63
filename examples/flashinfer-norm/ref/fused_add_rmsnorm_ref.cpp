// Reference fused add + RMSNorm in double, with FlashInfer's parameter list
// (FusedAddRMSNormKernel in upstream/include/flashinfer/norm.cuh) and a
// trailing row count. Both buffers are in/out: they arrive holding the inputs
// (as double) and leave holding residual = input + residual and
// input = residual / sqrt(mean(residual^2) + eps) * (weight_bias + weight).
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

void fused_add_rmsnorm_f16_ref(double* input, double* residual, const kgate::half* weight,
                               int32_t d, int32_t stride_input, int32_t stride_residual,
                               float weight_bias, float eps, int32_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    double* in = input + r * stride_input;
    double* res = residual + r * stride_residual;
    double sum = 0;
    for (int64_t c = 0; c < d; ++c) {
      res[c] = in[c] + res[c];
      sum += res[c] * res[c];
    }
    const double scale = 1.0 / std::sqrt(sum / d + double(eps));
    for (int64_t c = 0; c < d; ++c)
      in[c] = res[c] * scale * (double(weight_bias) + double(float(weight[c])));
  }
}
