// References for norm.cu's kernels with the parameter lists of ggml at
// 58450487: rms_norm_f32's operand extents are now uint3 fast-division
// constants {mp, L, d} (init_fastdiv_values in common.cuh), which kgate
// passes as structs and a reference receives field by field; the extent is
// d. norm_f32 and group_norm_f32 as before.
#include <cstdint>

#include "ggml_ref.h"

void rms_norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                      int64_t stride_channel, int64_t stride_sample, float eps, const float* mul,
                      int64_t mul_stride_row, int64_t mul_stride_channel, int64_t mul_stride_sample,
                      uint32_t, uint32_t, uint32_t mul_ncols, uint32_t, uint32_t,
                      uint32_t mul_nrows, uint32_t, uint32_t, uint32_t mul_nchannels, uint32_t,
                      uint32_t, uint32_t, const float* add, int64_t add_stride_row,
                      int64_t add_stride_channel, int64_t add_stride_sample, uint32_t, uint32_t,
                      uint32_t add_ncols, uint32_t, uint32_t, uint32_t add_nrows, uint32_t,
                      uint32_t, uint32_t add_nchannels, uint32_t, uint32_t, uint32_t) {
  (void)mul_stride_sample, (void)add_stride_sample;  // one sample
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
