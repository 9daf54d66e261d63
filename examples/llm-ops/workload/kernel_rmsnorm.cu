#include "../csrc/rmsnorm.cu"
#include "kernels.h"

void launch_rmsnorm(__half* out, const __half* x, const __half* weight, int rows, int cols,
                    float eps, cudaStream_t stream) {
  rmsnorm<<<rows, BLOCK, 0, stream>>>(out, x, weight, rows, cols, eps);
}
