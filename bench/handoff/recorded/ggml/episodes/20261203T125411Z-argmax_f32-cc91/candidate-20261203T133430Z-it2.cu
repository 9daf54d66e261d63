#include <algorithm>
#include <cstdint>

#include "argmax.cuh"
#include "common.cuh"
#include "sum.cuh"

// Split-row argmax: each block scans a slice of the row with 16-byte loads (ARGMAX_UNROLL
// independent float4 loads in flight per thread) and reduces it to one (value, index) pair with
// redux.sync (warp max of an order-preserving value key, then warp min of the index among the
// lanes holding that max). Thread 0 of each block folds its pair into one 64-bit global key
// (value key << 32 | ~index) with a single atomicMax and takes a ticket; the last block's thread 0
// reads and resets the key with atomicExch and writes dst. No second block-wide pass is needed.
// With gridDim.x == 1 a block handles its whole row (blockIdx.y) and writes dst directly.
#define ARGMAX_BLOCK_SIZE     256
#define ARGMAX_UNROLL         2
#define ARGMAX_COLS_PER_BLOCK (ARGMAX_BLOCK_SIZE*ARGMAX_UNROLL*4)
#define ARGMAX_MAX_BLOCKS     256

static __device__ unsigned long long argmax_global_key = 0ull;
static __device__ unsigned int       argmax_counter    = 0;

// order-preserving map float -> uint (for non-NaN values); -0.0 is folded onto +0.0 so that
// values that compare equal as floats get equal keys
static __device__ __forceinline__ unsigned int argmax_value_key(const float f) {
    unsigned int b = __float_as_uint(f);
    b = f == 0.0f ? 0u : b;
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// warp-level: max key, then the smallest index among lanes holding it (-1 = "none" loses)
static __device__ __forceinline__ void argmax_warp_reduce(unsigned int & k, unsigned int & i) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned int km = __reduce_max_sync(0xFFFFFFFF, k);
    const unsigned int im = __reduce_min_sync(0xFFFFFFFF, k == km ? i : 0xFFFFFFFFu);
    k = km;
    i = im;
#else
#pragma unroll
    for (int offset = WARP_SIZE/2; offset > 0; offset >>= 1) {
        const unsigned int kk = __shfl_xor_sync(0xFFFFFFFF, k, offset, WARP_SIZE);
        const unsigned int ii = __shfl_xor_sync(0xFFFFFFFF, i, offset, WARP_SIZE);
        if (kk > k || (kk == k && ii < i)) {
            k = kk;
            i = ii;
        }
    }
#endif
}

// result valid in thread 0 (in every lane of warp 0)
static __device__ __forceinline__ void argmax_block_reduce(unsigned int & k, unsigned int & i) {
    argmax_warp_reduce(k, i);

    const int n_warps = blockDim.x / WARP_SIZE;
    if (n_warps > 1) {
        constexpr int           max_warps = 1024 / WARP_SIZE;
        __shared__ unsigned int shared_key[max_warps];
        __shared__ unsigned int shared_idx[max_warps];
        const int lane_id = threadIdx.x % WARP_SIZE;
        const int warp_id = threadIdx.x / WARP_SIZE;
        if (lane_id == 0) {
            shared_key[warp_id] = k;
            shared_idx[warp_id] = i;
        }

        __syncthreads();

        if (warp_id == 0) {
            k = lane_id < n_warps ? shared_key[lane_id] : 0u;
            i = lane_id < n_warps ? shared_idx[lane_id] : 0xFFFFFFFFu;
            argmax_warp_reduce(k, i);
        }
    }
}

static __global__ void argmax_f32(const float * __restrict__ x, int32_t * __restrict__ dst, const int64_t ncols) {
    const int64_t row = blockIdx.y;

    float maxval = -FLT_MAX;
    int   argmax = -1;
    const float * rowx = x + row * ncols;

    // split the row into an unaligned head (< 4 elements), a float4 body and a tail (< 4 elements)
    const int64_t mis   = (int64_t) (((uintptr_t) rowx & 15) >> 2);
    const int64_t head0 = (4 - mis) & 3;
    const int64_t head  = head0 < ncols ? head0 : ncols;
    const int64_t nvec  = (ncols - head) >> 2;
    const int64_t tail0 = head + nvec*4;

    // per thread the columns are visited in increasing order, so strict > keeps the first max
    if (blockIdx.x == 0 && (int64_t) threadIdx.x < head) {
        const float val = rowx[threadIdx.x];
        if (val > maxval) {
            maxval = val;
            argmax = threadIdx.x;
        }
    }

    const float4 * xv      = (const float4 *) (rowx + head);
    const int64_t  vstride = (int64_t) gridDim.x * blockDim.x;

    for (int64_t base = (int64_t) blockIdx.x * blockDim.x + threadIdx.x; base < nvec; base += ARGMAX_UNROLL*vstride) {
        float4 v[ARGMAX_UNROLL];
#pragma unroll
        for (int u = 0; u < ARGMAX_UNROLL; ++u) {
            const int64_t k = base + u*vstride;
            v[u] = k < nvec ? xv[k] : make_float4(-FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX);
        }
#pragma unroll
        for (int u = 0; u < ARGMAX_UNROLL; ++u) {
            const int c = (int) (head + 4*(base + u*vstride));
            if (v[u].x > maxval) { maxval = v[u].x; argmax = c + 0; }
            if (v[u].y > maxval) { maxval = v[u].y; argmax = c + 1; }
            if (v[u].z > maxval) { maxval = v[u].z; argmax = c + 2; }
            if (v[u].w > maxval) { maxval = v[u].w; argmax = c + 3; }
        }
    }

    if (blockIdx.x == 0 && (int64_t) threadIdx.x < ncols - tail0) {
        const int   col = (int) (tail0 + threadIdx.x);
        const float val = rowx[col];
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }

    // maxval is never NaN here (NaN never passes the > test), so the key order matches float order
    unsigned int key = argmax_value_key(maxval);
    unsigned int idx = (unsigned int) argmax;
    argmax_block_reduce(key, idx);

    if (threadIdx.x != 0) {
        return;
    }

    if (gridDim.x == 1) {
        dst[row] = (int32_t) idx;
        return;
    }

    // several blocks per row (only used with gridDim.y == 1): fold into the global key, the last
    // block to take a ticket reads (and resets) the key and writes dst
    const unsigned long long packed = ((unsigned long long) key << 32) | (unsigned long long) (~idx);
    atomicMax(&argmax_global_key, packed);
    __threadfence();
    const unsigned int ticket = atomicAdd(&argmax_counter, 1u);
    if (ticket == gridDim.x - 1) {
        __threadfence();
        const unsigned long long res = atomicExch(&argmax_global_key, 0ull); // ready for the next launch
        dst[row] = (int32_t) ~((unsigned int) (res & 0xFFFFFFFFull));
        argmax_counter = 0; // ready for the next launch
    }
}

void ggml_cuda_argmax(ggml_backend_cuda_context & ctx, ggml_tensor * dst) {
    const ggml_tensor * src0 = dst->src[0];

    GGML_ASSERT(src0->type == GGML_TYPE_F32);
    GGML_ASSERT( dst->type == GGML_TYPE_I32);

    GGML_ASSERT(ggml_is_contiguous(src0));

    const int64_t ne00  = src0->ne[0];
    const int64_t nrows = ggml_nrows(src0);

    const float * src0_d = (const float *) src0->data;
    int32_t     * dst_d  = (int32_t     *) dst->data;

    cudaStream_t stream = ctx.stream();

    const dim3 blocks_dim(ARGMAX_BLOCK_SIZE, 1, 1);

    if (nrows == 1) {
        // one row: split it over several blocks
        const int64_t nblocks = std::max<int64_t>(1, std::min<int64_t>(ARGMAX_MAX_BLOCKS,
            (ne00 + ARGMAX_COLS_PER_BLOCK - 1) / ARGMAX_COLS_PER_BLOCK));
        const dim3 blocks_num(nblocks, 1, 1);
        argmax_f32<<<blocks_num, blocks_dim, 0, stream>>>(src0_d, dst_d, ne00);
    } else {
        // many rows: one block per row (blockIdx.y), rows launched in chunks of 65535
        for (int64_t r0 = 0; r0 < nrows; r0 += 65535) {
            const int64_t nr = std::min<int64_t>(65535, nrows - r0);
            const dim3 blocks_num(1, nr, 1);
            argmax_f32<<<blocks_num, blocks_dim, 0, stream>>>(src0_d + r0*ne00, dst_d + r0, ne00);
        }
    }
}
