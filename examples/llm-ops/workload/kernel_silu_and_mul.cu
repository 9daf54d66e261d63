#include "../csrc/silu_and_mul.cu"
#include "kernels.h"

void launch_silu_and_mul(__half* out, const __half* input, int rows, int d, cudaStream_t stream) {
  dim3 grid((d + BLOCK * ELEMS - 1) / (BLOCK * ELEMS), rows);
  silu_and_mul<<<grid, BLOCK, 0, stream>>>(out, input, rows, d);
}
