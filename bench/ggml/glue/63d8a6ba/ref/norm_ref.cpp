// References for norm.cu's kernels with the parameter lists of ggml at
// 63d8a6ba: rms_norm_f32<block_size, do_multiply> takes (x, dst, ncols,
// stride_row, stride_channel, stride_sample, eps) and then the fused
// multiply's operand (mul, its three strides in elements, its four extents),
// NULL and zeros when not fused; norm_f32<block_size> and
// group_norm_f32<block_size> as before.
#include <cstdint>

#include "ggml_ref.h"

void rms_norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                      int64_t stride_channel, int64_t stride_sample, float eps, const float* mul,
                      int64_t mul_stride_row, int64_t mul_stride_channel, int64_t mul_stride_sample,
                      int32_t mul_ncols, int32_t mul_nrows, int32_t mul_nchannels,
                      int32_t mul_nsamples) {
  (void)mul_stride_sample, (void)mul_nsamples;  // one sample
  const ggml_ref::Operand m{mul,       mul_stride_row, mul_stride_channel,
                            mul_ncols, mul_nrows,      mul_nchannels};
  ggml_ref::rms_norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps, m, {});
}

void norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                  int64_t stride_channel, int64_t stride_sample, float eps) {
  ggml_ref::norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps);
}

void group_norm_f32_ref(const float* x, double* dst, int32_t group_size, int32_t ne_elements,
                        float eps) {
  ggml_ref::group_norm(x, dst, group_size, ne_elements, eps);
}
