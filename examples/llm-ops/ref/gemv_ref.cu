// Reference GEMV in double on the GPU: y[b, n] = sum_k x[b, k] * w[n, k], the
// host reference (gemv_ref.cpp) with one block per output.
// Launch: grid [n, batch], block [256].
#include "ref_block.cuh"

extern "C" __global__ void gemv_ref(double* y, const __half* x, const __half* w, int batch, int n,
                                    int k) {
  const long long j = blockIdx.x, b = blockIdx.y;
  if (j >= n || b >= batch) return;
  const __half* wr = w + j * k;
  const __half* xr = x + b * k;
  double sum = 0;
  for (int i = threadIdx.x; i < k; i += kRefThreads) sum += as_double(xr[i]) * as_double(wr[i]);
  sum = ref_block_sum(sum);
  if (threadIdx.x == 0) y[b * n + j] = sum;
}
