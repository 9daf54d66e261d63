// Host reference for vectorAdd: C = A + B, in double. Written for kgate's
// bench; not part of the samples.
void vector_add_ref(const float* A, const float* B, double* C, int n) {
  for (int i = 0; i < n; ++i) C[i] = static_cast<double>(A[i]) + B[i];
}
