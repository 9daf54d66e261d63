// Reference RMSNorm in double, with FlashInfer's parameter list
// (RMSNormKernel in upstream/include/flashinfer/norm.cuh) and a trailing row
// count: output[r][c] = x[r][c] / sqrt(mean_c(x[r]^2) + eps) * (weight_bias + weight[c]),
// x[r] read from input + r * stride_input.
#include <kgate_host.h>

#include <cmath>
#include <cstdint>

namespace {

template <class T>
void rmsnorm_rows(const T* input, const T* weight, double* output, int32_t d, int32_t stride_input,
                  int32_t stride_output, float weight_bias, float eps, int32_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* x = input + r * stride_input;
    double sum = 0;
    for (int64_t c = 0; c < d; ++c) sum += double(float(x[c])) * double(float(x[c]));
    const double scale = 1.0 / std::sqrt(sum / d + double(eps));
    double* out = output + r * stride_output;
    for (int64_t c = 0; c < d; ++c)
      out[c] = double(float(x[c])) * scale * (double(weight_bias) + double(float(weight[c])));
  }
}

}  // namespace

void rmsnorm_f16_ref(const kgate::half* input, const kgate::half* weight, double* output, int32_t d,
                     int32_t stride_input, int32_t stride_output, float weight_bias, float eps,
                     int32_t rows) {
  rmsnorm_rows(input, weight, output, d, stride_input, stride_output, weight_bias, eps, rows);
}

void rmsnorm_bf16_ref(const kgate::bfloat16* input, const kgate::bfloat16* weight, double* output,
                      int32_t d, int32_t stride_input, int32_t stride_output, float weight_bias,
                      float eps, int32_t rows) {
  rmsnorm_rows(input, weight, output, d, stride_input, stride_output, weight_bias, eps, rows);
}
