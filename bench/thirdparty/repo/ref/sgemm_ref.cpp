// Host reference for the sgemm kernels: C = alpha * A @ B + beta * C, with A
// M x K, B K x N and C M x N, all row-major, in double. Written for kgate's
// bench; not part of SGEMM_CUDA.
#include <vector>

void sgemm_ref(int M, int N, int K, float alpha, const float* A, const float* B, float beta,
               double* C) {
  std::vector<double> row(N);
  for (int i = 0; i < M; ++i) {
    for (int j = 0; j < N; ++j) row[j] = 0;
    // k outside j: B is read row by row, and the inner loop is contiguous.
    for (int k = 0; k < K; ++k) {
      const double a = A[static_cast<long>(i) * K + k];
      const float* b = B + static_cast<long>(k) * N;
      for (int j = 0; j < N; ++j) row[j] += a * b[j];
    }
    double* c = C + static_cast<long>(i) * N;
    for (int j = 0; j < N; ++j) c[j] = static_cast<double>(alpha) * row[j] + beta * c[j];
  }
}
