#include "../csrc/gemv.cu"
#include "kernels.h"

void launch_gemv(__half* y, const __half* x, const __half* w, int batch, int n, int k,
                 cudaStream_t stream) {
  // The manifest's launch: grid ceil_div(n, ROWS) x ceil_div(batch, BATCH_TILE).
  dim3 grid((n + ROWS - 1) / ROWS, (batch + BATCH_TILE - 1) / BATCH_TILE);
  gemv<<<grid, BLOCK, 0, stream>>>(y, x, w, batch, n, k);
}
