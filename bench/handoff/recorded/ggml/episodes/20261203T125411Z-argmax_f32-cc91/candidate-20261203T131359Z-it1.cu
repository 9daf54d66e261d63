#include <algorithm>
#include <cstdint>

#include "argmax.cuh"
#include "common.cuh"
#include "sum.cuh"

// Split-row argmax: each block scans a slice of the row with 16-byte loads (ARGMAX_UNROLL
// independent float4 loads in flight per thread), reduces to one (value, index) pair, and the
// last block to finish (ticket counter) combines the per-block partials and writes dst.
// With gridDim.x == 1 a block handles its whole row (blockIdx.y) and writes dst directly.
#define ARGMAX_BLOCK_SIZE     256
#define ARGMAX_UNROLL         4
#define ARGMAX_COLS_PER_BLOCK (ARGMAX_BLOCK_SIZE*ARGMAX_UNROLL*4)
#define ARGMAX_MAX_BLOCKS     256

static __device__ float        argmax_partial_val[ARGMAX_MAX_BLOCKS];
static __device__ int          argmax_partial_idx[ARGMAX_MAX_BLOCKS];
static __device__ unsigned int argmax_counter = 0;

// total order: larger value wins, on equal values the smaller index wins (-1 = "none" loses)
static __device__ __forceinline__ void argmax_combine(float & m, int & i, const float v, const int j) {
    if (v > m || (v == m && (unsigned int) j < (unsigned int) i)) {
        m = v;
        i = j;
    }
}

// result valid in thread 0 (in every lane of warp 0)
static __device__ __forceinline__ void argmax_block_reduce(float & m, int & i) {
#pragma unroll
    for (int offset = WARP_SIZE/2; offset > 0; offset >>= 1) {
        const float v = __shfl_xor_sync(0xFFFFFFFF, m, offset, WARP_SIZE);
        const int   j = __shfl_xor_sync(0xFFFFFFFF, i, offset, WARP_SIZE);
        argmax_combine(m, i, v, j);
    }

    const int n_warps = blockDim.x / WARP_SIZE;
    if (n_warps > 1) {
        constexpr int    max_warps = 1024 / WARP_SIZE;
        __shared__ float shared_maxval[max_warps];
        __shared__ int   shared_argmax[max_warps];
        const int lane_id = threadIdx.x % WARP_SIZE;
        const int warp_id = threadIdx.x / WARP_SIZE;
        if (lane_id == 0) {
            shared_maxval[warp_id] = m;
            shared_argmax[warp_id] = i;
        }

        __syncthreads();

        if (warp_id == 0) {
            m = lane_id < n_warps ? shared_maxval[lane_id] : -FLT_MAX;
            i = lane_id < n_warps ? shared_argmax[lane_id] : -1;
#pragma unroll
            for (int offset = WARP_SIZE/2; offset > 0; offset >>= 1) {
                const float v = __shfl_xor_sync(0xFFFFFFFF, m, offset, WARP_SIZE);
                const int   j = __shfl_xor_sync(0xFFFFFFFF, i, offset, WARP_SIZE);
                argmax_combine(m, i, v, j);
            }
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

    argmax_block_reduce(maxval, argmax);

    if (gridDim.x == 1) {
        if (threadIdx.x == 0) {
            dst[row] = argmax;
        }
        return;
    }

    // several blocks per row (only used with gridDim.y == 1): last block combines the partials
    __shared__ bool is_last;
    if (threadIdx.x == 0) {
        argmax_partial_val[blockIdx.x] = maxval;
        argmax_partial_idx[blockIdx.x] = argmax;
        __threadfence();
        const unsigned int ticket = atomicAdd(&argmax_counter, 1u);
        is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();

    if (!is_last) {
        return;
    }
    __threadfence();

    maxval = -FLT_MAX;
    argmax = -1;
    for (int j = threadIdx.x; j < (int) gridDim.x; j += blockDim.x) {
        argmax_combine(maxval, argmax, __ldcg(&argmax_partial_val[j]), __ldcg(&argmax_partial_idx[j]));
    }

    argmax_block_reduce(maxval, argmax);

    if (threadIdx.x == 0) {
        dst[row] = argmax;
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
