#include "../csrc/softmax.cu"
#include "kernels.h"

void launch_softmax(__half* out, const __half* x, int rows, int cols, cudaStream_t stream) {
  softmax<<<rows, BLOCK, 0, stream>>>(out, x, rows, cols);
}
