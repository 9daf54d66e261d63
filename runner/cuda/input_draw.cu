// The GPU side of kgate's input draw (runner/input_formula.h): one kernel
// that writes element i of a buffer as the host's make_input would, so a
// large shape's inputs are drawn where they are used instead of on the host
// and uploaded. Built with nvcc at kgate's build time into a fat binary
// embedded in kgate (runner/CMakeLists.txt), with -fmad=false: the formula's
// products and sums round one at a time, as on the host.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "runner/input_formula.h"

namespace {

using kgate::input_formula::DrawSpec;

// Stores `v` as the host's store_from_double does: to float rounding to
// nearest, then to half or bfloat16 rounding to nearest even; integers
// truncate.
__device__ void store(const DrawSpec& s, void* out, int64_t i, double v) {
  switch (s.dtype) {
    case 0:
      static_cast<double*>(out)[i] = v;
      return;
    case 1:
      static_cast<float*>(out)[i] = __double2float_rn(v);
      return;
    case 2:
      static_cast<__half*>(out)[i] = __float2half_rn(__double2float_rn(v));
      return;
    case 3:
      static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16_rn(__double2float_rn(v));
      return;
    case 4:
      static_cast<long long*>(out)[i] = static_cast<long long>(v);
      return;
    case 5:
      static_cast<int*>(out)[i] = static_cast<int>(v);
      return;
    case 6:
      static_cast<unsigned char*>(out)[i] = static_cast<unsigned char>(v);
      return;
    case 7:
      static_cast<signed char*>(out)[i] = static_cast<signed char>(v);
      return;
    case 8:
      static_cast<short*>(out)[i] = static_cast<short>(v);
      return;
    case 9:
      static_cast<unsigned short*>(out)[i] = static_cast<unsigned short>(v);
      return;
    case 10:
      static_cast<unsigned int*>(out)[i] = static_cast<unsigned int>(v);
      return;
    case 11:
      static_cast<unsigned long long*>(out)[i] = static_cast<unsigned long long>(v);
      return;
    case 12:
      static_cast<unsigned char*>(out)[i] = v != 0;
      return;
  }
}

}  // namespace

extern "C" __global__ void kgate_draw_input(DrawSpec spec, void* out) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < spec.count;
       i += stride) {
    if (spec.distribution == 2 && (spec.dtype == 4 || spec.dtype == 11))
      static_cast<long long*>(out)[i] = kgate::input_formula::randint_value(spec, i);
    else
      store(spec, out, i, kgate::input_formula::value(spec, i));
  }
}
