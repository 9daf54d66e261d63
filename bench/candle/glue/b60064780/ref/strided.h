// candle's tensor layout as its kernels take it (`const size_t *info`: the
// dims, then the strides, of a row-major tensor): the storage offset of the
// element at row-major index `idx`, the last dim varying fastest. Shared by the
// host references (ref/*.cpp) and the reference kernels (ref/*.cu).
#pragma once
#include <stddef.h>

#if defined(__CUDACC__)
#define CANDLE_REF_HD __host__ __device__
#else
#define CANDLE_REF_HD
#endif

// A NULL info is a contiguous tensor (candle passes NULL for those).
CANDLE_REF_HD inline size_t strided_offset(size_t idx, size_t num_dims, const size_t* dims,
                                           const size_t* strides) {
  if (dims == nullptr) return idx;
  size_t offset = 0;
  for (size_t d = num_dims; d-- > 0;) {
    offset += (idx % dims[d]) * strides[d];
    idx /= dims[d];
  }
  return offset;
}
