#include "../csrc/fused_add_rmsnorm.cu"
#include "kernels.h"

void launch_fused_add_rmsnorm(__half* input, __half* residual, const __half* weight, int rows,
                              int cols, float eps, cudaStream_t stream) {
  fused_add_rmsnorm<<<rows, BLOCK, 0, stream>>>(input, residual, weight, rows, cols, eps);
}
