// Reference rotary embedding (NeoX style, whole head) in double on the GPU:
// the host reference (rotary_embedding_ref.cpp) with one block per token;
// query and key are in/out in double. Launch: grid [tokens], block [256].
#include "ref_block.cuh"

__device__ void rotate_heads(double* x, const __half* cos_sin, int heads, int head_dim) {
  const int half_dim = head_dim / 2;
  for (int p = threadIdx.x; p < heads * half_dim; p += kRefThreads) {
    const int h = p / half_dim, j = p % half_dim;
    double* v = x + static_cast<long long>(h) * head_dim;
    const double c = as_double(cos_sin[j]), s = as_double(cos_sin[half_dim + j]);
    const double x1 = v[j], x2 = v[j + half_dim];
    v[j] = x1 * c - x2 * s;
    v[j + half_dim] = x2 * c + x1 * s;
  }
}

extern "C" __global__ void rotary_embedding_ref(double* query, double* key, const int* positions,
                                                const __half* cos_sin_cache, int tokens, int heads,
                                                int kv_heads, int head_dim) {
  const long long t = blockIdx.x;
  if (t >= tokens) return;
  const __half* cos_sin = cos_sin_cache + static_cast<long long>(positions[t]) * head_dim;
  rotate_heads(query + t * heads * head_dim, cos_sin, heads, head_dim);
  rotate_heads(key + t * kv_heads * head_dim, cos_sin, kv_heads, head_dim);
}
