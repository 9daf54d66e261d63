// Reference RmsNorm and LayerNorm in double, with the parameter lists of
// candle's RMSNORM_OP and LAYERNORM_OP (candle-kernels/src/reduce.cu):
//   rmsnorm:   dst = x / sqrt(mean(x^2) + eps) * alpha
//   layernorm: dst = (x - mean(x)) / sqrt(var(x) + eps) * alpha + beta
// The kernels take no row count (each block reads its row from blockIdx.x) and kgate
// passes the references only the kernel's parameters: one entry per row count of the
// manifest's kernels (rmsnorm_bf16: 4096 rows, rmsnorm_bf16.b64: 64, .b1: 1).
#include <kgate_host.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace {

double as_double(float x) {
  return x;
}
double as_double(kgate::bfloat16 x) {
  return double(float(x));
}

template <class T>
void norm_rows(const T* src, double* dst, const T* alpha, const T* beta, bool center,
               int32_t n_cols, float eps, int32_t rows) {
  for (size_t r = 0; r < size_t(rows); ++r) {
    const T* x = src + r * n_cols;
    double sum = 0, sq = 0;
    for (int32_t c = 0; c < n_cols; ++c) {
      sum += as_double(x[c]);
      sq += as_double(x[c]) * as_double(x[c]);
    }
    const double mean = center ? sum / n_cols : 0;
    const double scale = 1 / std::sqrt(sq / n_cols - mean * mean + eps);
    for (int32_t c = 0; c < n_cols; ++c)
      dst[r * n_cols + c] = (as_double(x[c]) - mean) * scale * as_double(alpha[c]) +
                            (beta ? as_double(beta[c]) : 0.0);
  }
}

}  // namespace

void rmsnorm_bf16_rows4096_ref(const kgate::bfloat16* src, double* dst,
                               const kgate::bfloat16* alpha, int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, static_cast<const kgate::bfloat16*>(nullptr), false, n_cols, eps,
            4096);
}

void rmsnorm_f32_rows4096_ref(const float* src, double* dst, const float* alpha, int32_t n_cols,
                              float eps) {
  norm_rows(src, dst, alpha, static_cast<const float*>(nullptr), false, n_cols, eps, 4096);
}

void layernorm_bf16_rows4096_ref(const kgate::bfloat16* src, double* dst,
                                 const kgate::bfloat16* alpha, const kgate::bfloat16* beta,
                                 int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, beta, true, n_cols, eps, 4096);
}

void rmsnorm_bf16_rows64_ref(const kgate::bfloat16* src, double* dst, const kgate::bfloat16* alpha,
                             int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, static_cast<const kgate::bfloat16*>(nullptr), false, n_cols, eps, 64);
}

void rmsnorm_f32_rows64_ref(const float* src, double* dst, const float* alpha, int32_t n_cols,
                            float eps) {
  norm_rows(src, dst, alpha, static_cast<const float*>(nullptr), false, n_cols, eps, 64);
}

void layernorm_bf16_rows64_ref(const kgate::bfloat16* src, double* dst,
                               const kgate::bfloat16* alpha, const kgate::bfloat16* beta,
                               int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, beta, true, n_cols, eps, 64);
}

void rmsnorm_bf16_rows1_ref(const kgate::bfloat16* src, double* dst, const kgate::bfloat16* alpha,
                            int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, static_cast<const kgate::bfloat16*>(nullptr), false, n_cols, eps, 1);
}

void rmsnorm_f32_rows1_ref(const float* src, double* dst, const float* alpha, int32_t n_cols,
                           float eps) {
  norm_rows(src, dst, alpha, static_cast<const float*>(nullptr), false, n_cols, eps, 1);
}

void layernorm_bf16_rows1_ref(const kgate::bfloat16* src, double* dst, const kgate::bfloat16* alpha,
                              const kgate::bfloat16* beta, int32_t n_cols, float eps) {
  norm_rows(src, dst, alpha, beta, true, n_cols, eps, 1);
}
