// References for norm.cu's kernels with the parameter lists of ggml at
// a2bacc13: rms_norm_f32<block_size> and norm_f32<block_size> take
// (x, dst, ncols, stride_row, stride_channel, stride_sample, eps),
// group_norm_f32<block_size> (x, dst, group_size, ne_elements, eps).
#include <cstdint>

#include "ggml_ref.h"

void rms_norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                      int64_t stride_channel, int64_t stride_sample, float eps) {
  ggml_ref::rms_norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps, {}, {});
}

void norm_f32_ref(const float* x, double* dst, int32_t ncols, int64_t stride_row,
                  int64_t stride_channel, int64_t stride_sample, float eps) {
  ggml_ref::norm(x, dst, ncols, stride_row, stride_channel, stride_sample, eps);
}

void group_norm_f32_ref(const float* x, double* dst, int32_t group_size, int32_t ne_elements,
                        float eps) {
  ggml_ref::group_norm(x, dst, group_size, ne_elements, eps);
}
