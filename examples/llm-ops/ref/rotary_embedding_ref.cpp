// Reference rotary embedding (NeoX style, whole head) in double precision;
// query and key arrive holding the inputs (as double) and leave rotated.
#include <kgate_host.h>

#include <cstdint>

using kgate::half;

static void rotate(double* x, const half* cos_sin, int64_t heads, int64_t head_dim) {
  int64_t half_dim = head_dim / 2;
  for (int64_t h = 0; h < heads; ++h) {
    double* v = x + h * head_dim;
    for (int64_t j = 0; j < half_dim; ++j) {
      double c = float(cos_sin[j]), s = float(cos_sin[half_dim + j]);
      double x1 = v[j], x2 = v[j + half_dim];
      v[j] = x1 * c - x2 * s;
      v[j + half_dim] = x2 * c + x1 * s;
    }
  }
}

void rotary_embedding_ref(double* query, double* key, const int32_t* positions,
                          const half* cos_sin_cache, int32_t tokens, int32_t heads,
                          int32_t kv_heads, int32_t head_dim) {
  for (int64_t t = 0; t < tokens; ++t) {
    const half* cos_sin = cos_sin_cache + int64_t(positions[t]) * head_dim;
    rotate(query + t * heads * head_dim, cos_sin, heads, head_dim);
    rotate(key + t * kv_heads * head_dim, cos_sin, kv_heads, head_dim);
  }
}
