// References for sumrows.cu's reduce_rows_f32<norm> (x, dst, ncols) and
// argmax.cu's argmax_f32 (x, dst, ncols): one block per row, the row count
// from gridDim only. A reference sees the parameters alone, so each kgate
// kernel has one row count and its own entry here (kgate.json says which).
#include <cstdint>

namespace {

void sum_rows(const float* x, double* dst, int64_t ncols, int64_t nrows) {
  for (int64_t r = 0; r < nrows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < ncols; ++c) sum += x[r * ncols + c];
    dst[r] = sum;
  }
}

// The index of the largest element of each row (the first of equal ones; the
// inputs are drawn, so ties do not occur).
void argmax_rows(const float* x, double* dst, int64_t ncols, int64_t nrows) {
  for (int64_t r = 0; r < nrows; ++r) {
    int64_t best = 0;
    for (int64_t c = 1; c < ncols; ++c)
      if (x[r * ncols + c] > x[r * ncols + best]) best = c;
    dst[r] = double(best);
  }
}

}  // namespace

void sum_rows_1_ref(const float* x, double* dst, int32_t ncols) {
  sum_rows(x, dst, ncols, 1);
}
void sum_rows_4096_ref(const float* x, double* dst, int32_t ncols) {
  sum_rows(x, dst, ncols, 4096);
}
void argmax_1_ref(const float* x, double* dst, int64_t ncols) {
  argmax_rows(x, dst, ncols, 1);
}
