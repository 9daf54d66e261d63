// Reference GEMV in double precision: y[b, n] = sum_k x[b, k] * w[n, k].
#include <kgate_host.h>

#include <cstdint>

using kgate::half;

void gemv_ref(double* y, const half* x, const half* w, int32_t batch, int32_t n, int32_t k) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t j = 0; j < n; ++j) {
      const half* wr = w + j * k;
      const half* xr = x + b * k;
      double sum = 0;
      for (int64_t i = 0; i < k; ++i) sum += double(float(xr[i])) * double(float(wr[i]));
      y[b * n + j] = sum;
    }
}
