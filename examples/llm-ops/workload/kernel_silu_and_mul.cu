#include "../csrc/silu_and_mul.cu"
#include "kernels.h"

void launch_silu_and_mul(__half* out, const __half* input, int rows, int d, cudaStream_t stream) {
  // The manifest's launch: grid ceil_div(d, BLOCK * ELEMS * VEC) x rows.
  dim3 grid((d + BLOCK * ELEMS * VEC - 1) / (BLOCK * ELEMS * VEC), rows);
  silu_and_mul<<<grid, BLOCK, 0, stream>>>(out, input, rows, d);
}
