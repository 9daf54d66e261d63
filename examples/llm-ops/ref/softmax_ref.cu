// Reference row softmax in double on the GPU: the host reference
// (softmax_ref.cpp) with one block per row. Launch: grid [rows], block [256].
#include "ref_block.cuh"

extern "C" __global__ void softmax_ref(double* out, const __half* x, int rows, int cols) {
  const long long row = blockIdx.x;
  if (row >= rows) return;
  const __half* xr = x + row * cols;
  double best = __longlong_as_double(0xfff0000000000000ull);  // -infinity
  for (int c = threadIdx.x; c < cols; c += kRefThreads) best = fmax(best, as_double(xr[c]));
  best = ref_block_max(best);
  double sum = 0;
  for (int c = threadIdx.x; c < cols; c += kRefThreads) sum += exp(as_double(xr[c]) - best);
  sum = ref_block_sum(sum);
  for (int c = threadIdx.x; c < cols; c += kRefThreads)
    out[row * cols + c] = exp(as_double(xr[c]) - best) / sum;
}
