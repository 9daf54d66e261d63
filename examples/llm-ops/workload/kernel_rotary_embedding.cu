#include "../csrc/rotary_embedding.cu"
#include "kernels.h"

void launch_rotary_embedding(__half* query, __half* key, const int* positions,
                             const __half* cos_sin_cache, int tokens, int heads, int kv_heads,
                             int head_dim, cudaStream_t stream) {
  rotary_embedding<<<tokens, BLOCK, 0, stream>>>(query, key, positions, cos_sin_cache, tokens,
                                                 heads, kv_heads, head_dim);
}
