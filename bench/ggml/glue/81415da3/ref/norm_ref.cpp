// References for norm.cu's kernels with the parameter lists of ggml at
// 81415da3: rms_norm_f32<block_size, do_multiply, do_add> takes (x, dst,
// ncols, stride_row, stride_channel, stride_sample, eps), the fused
// multiply's operand (mul, three strides in elements, four extents) and the
// fused add's (add, the same), NULL and zeros when not fused; norm_f32 and
// group_norm_f32 as before.
#include <cstdint>

#include "ggml_ref.h"

void rms_norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                      int64_t stride_channel, int64_t stride_sample, float eps, const float* mul,
                      int64_t mul_stride_row, int64_t mul_stride_channel, int64_t mul_stride_sample,
                      int32_t mul_ncols, int32_t mul_nrows, int32_t mul_nchannels,
                      int32_t mul_nsamples, const float* add, int64_t add_stride_row,
                      int64_t add_stride_channel, int64_t add_stride_sample, int32_t add_ncols,
                      int32_t add_nrows, int32_t add_nchannels, int32_t add_nsamples) {
  (void)mul_stride_sample, (void)mul_nsamples, (void)add_stride_sample,
      (void)add_nsamples;  // one sample
  const ggml_ref::Operand m{mul,       mul_stride_row, mul_stride_channel,
                            mul_ncols, mul_nrows,      mul_nchannels};
  const ggml_ref::Operand a{add,       add_stride_row, add_stride_channel,
                            add_ncols, add_nrows,      add_nchannels};
  ggml_ref::rms_norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps, m, a);
}

void norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                  int64_t stride_channel, int64_t stride_sample, float eps) {
  ggml_ref::norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps);
}

void group_norm_f32_ref(const float* x, double* dst, int32_t group_size, int32_t ne_elements,
                        float eps) {
  ggml_ref::group_norm(x, dst, group_size, ne_elements, eps);
}
