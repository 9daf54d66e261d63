// Host reference for the reduce kernel: the sum of each chunk of 1024
// elements, in double. Written for kgate's bench; not part of the samples.
void reduce_chunks_ref(const float* in, double* out, unsigned int n) {
  const unsigned int chunk = 1024;
  for (unsigned int b = 0; b * chunk < n; ++b) {
    double sum = 0;
    for (unsigned int i = b * chunk; i < n && i < (b + 1) * chunk; ++i) sum += in[i];
    out[b] = sum;
  }
}
