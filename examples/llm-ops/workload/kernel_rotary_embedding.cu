#include "../csrc/rotary_embedding.cu"
#include "kernels.h"

// The grid and block come from launch_dims.h, which kgate's tests hold to kgate.json.
void launch_rotary_embedding(__half* query, __half* key, const int* positions,
                             const __half* cos_sin_cache, int tokens, int heads, int kv_heads,
                             int head_dim, cudaStream_t stream) {
  const launch_dims::Launch l = launch_dims::rotary_embedding(tokens, BLOCK);
  rotary_embedding<<<grid_of(l), block_of(l), l.shared_bytes, stream>>>(
      query, key, positions, cos_sin_cache, tokens, heads, kv_heads, head_dim);
}
