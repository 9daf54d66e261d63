// A small Llama-style decoder that runs the example kernels of ../csrc the
// way an inference engine would: the end-to-end workload kgate extracts its
// tasks from and validates candidates in (docs/workload.md).
//
// Random weights from a seed; embedding, RMSNorm (fused with the residual
// add after the first), rotary embedding, causal grouped-query attention,
// a SiLU-gated MLP with its matrix products through cuBLAS, the LM head as a
// GEMV, softmax over the vocabulary and greedy sampling. The prompt is one
// `prefill` NVTX range, the generated tokens one `decode` range.
//
//   llama --out FILE [--config 8b|small] [--layers N] [--prompt P]
//         [--new-tokens N] [--repeat R] [--seed S]
//
// FILE receives JSON: the token ids (prompt and generated), the last step's
// logits, each generated token's probability, and per-phase latency in ms
// (one figure per timed repeat; a warm-up repeat runs first, untimed).
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"

#define CUDA_CHECK(x)                                                                              \
  do {                                                                                             \
    cudaError_t e_ = (x);                                                                          \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "llama: %s failed: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, \
                   __LINE__);                                                                      \
      std::exit(3);                                                                                \
    }                                                                                              \
  } while (0)
#define CUBLAS_CHECK(x)                                                                    \
  do {                                                                                     \
    cublasStatus_t s_ = (x);                                                               \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
      std::fprintf(stderr, "llama: %s failed: status %d (%s:%d)\n", #x, int(s_), __FILE__, \
                   __LINE__);                                                              \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

namespace {

struct Config {
  int hidden = 4096, heads = 32, kv_heads = 8, head_dim = 128, intermediate = 14336;
  int vocab = 128256, layers = 4, prompt = 256, new_tokens = 16, repeat = 3;
  uint64_t seed = 1;
  float eps = 1e-5f, rope_theta = 500000.0f;
};

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform with standard deviation `stddev` around `mean`, from (seed, index).
__global__ void fill_random(__half* p, size_t n, uint64_t seed, float mean, float stddev) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    double u = (splitmix64(seed * 0x100000001b3ull + i) >> 11) * (1.0 / 9007199254740992.0);
    p[i] = __float2half(mean + stddev * 1.7320508f * float(2 * u - 1));
  }
}

__global__ void embed(__half* out, const __half* table, const int* tokens, int count, int hidden) {
  const int t = blockIdx.x;
  const __half* row = table + size_t(tokens[t]) * hidden;
  for (int c = threadIdx.x; c < hidden; c += blockDim.x) out[size_t(t) * hidden + c] = row[c];
}

// Causal grouped-query attention, plainly: one block per (query token, head),
// scores in shared memory. Query t sits at position start + t and sees the
// cached keys and values of positions 0..start + t.
__global__ void attention(__half* out, const __half* q, const __half* k_cache,
                          const __half* v_cache, int start, int heads, int kv_heads, int head_dim,
                          float scale) {
  extern __shared__ float smem[];
  const int t = blockIdx.x, h = blockIdx.y, ctx = start + t + 1;
  const int kvh = h / (heads / kv_heads);
  float* qs = smem;
  float* red = qs + head_dim;
  float* scores = red + blockDim.x;
  const __half* qrow = q + (size_t(t) * heads + h) * head_dim;
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) qs[d] = __half2float(qrow[d]);
  __syncthreads();
  float m = -INFINITY;
  for (int j = threadIdx.x; j < ctx; j += blockDim.x) {
    const __half* krow = k_cache + (size_t(j) * kv_heads + kvh) * head_dim;
    float dot = 0;
    for (int d = 0; d < head_dim; ++d) dot += qs[d] * __half2float(krow[d]);
    scores[j] = dot * scale;
    m = fmaxf(m, scores[j]);
  }
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0;
  for (int j = threadIdx.x; j < ctx; j += blockDim.x) {
    scores[j] = expf(scores[j] - m);
    sum += scores[j];
  }
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  const float inv = 1.0f / red[0];
  __half* orow = out + (size_t(t) * heads + h) * head_dim;
  for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
    float acc = 0;
    for (int j = 0; j < ctx; ++j)
      acc += scores[j] * __half2float(v_cache[(size_t(j) * kv_heads + kvh) * head_dim + d]);
    orow[d] = __float2half(acc * inv);
  }
}

// Greedy sampling: the first index of the largest logit becomes
// tokens[next]; its probability (from the softmax) goes to chosen_prob.
__global__ void argmax_sample(int* tokens, int next, float* chosen_prob, const __half* logits,
                              const __half* probs, int vocab) {
  __shared__ float best_v[1024];
  __shared__ int best_i[1024];
  float bv = -INFINITY;
  int bi = 0x7fffffff;
  for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
    float v = __half2float(logits[i]);
    if (v > bv) bv = v, bi = i;  // i ascends per thread: ties keep the first
  }
  best_v[threadIdx.x] = bv;
  best_i[threadIdx.x] = bi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s /= 2) {
    if (threadIdx.x < s) {
      float ov = best_v[threadIdx.x + s];
      int oi = best_i[threadIdx.x + s];
      if (ov > best_v[threadIdx.x] || (ov == best_v[threadIdx.x] && oi < best_i[threadIdx.x]))
        best_v[threadIdx.x] = ov, best_i[threadIdx.x] = oi;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    tokens[next] = best_i[0];
    *chosen_prob = __half2float(probs[best_i[0]]);
  }
}

struct Layer {
  __half *wq, *wk, *wv, *wo, *w_gate_up, *w_down, *norm_in, *norm_post;
  __half *k_cache, *v_cache;
};

struct Model {
  Config cfg;
  cudaStream_t stream{};
  cublasHandle_t blas{};
  __half *embedding{}, *lm_head{}, *norm_final{}, *cos_sin{};
  std::vector<Layer> layers;
  int* positions{};  // 0, 1, 2, ... for the rotary kernel
  int* tokens{};     // prompt then generated ids
  float* chosen{};   // probability of each generated token
  // Activations for up to `prompt` tokens.
  __half *hidden{}, *residual{}, *q{}, *attn{}, *gate_up{}, *act{}, *logits{}, *probs{};
};

__half* alloc_random(size_t n, uint64_t seed, float mean, float stddev) {
  __half* p;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(__half)));
  fill_random<<<1024, 256>>>(p, n, seed, mean, stddev);
  CUDA_CHECK(cudaGetLastError());
  return p;
}

__half* alloc_half(size_t n) {
  __half* p;
  CUDA_CHECK(cudaMalloc(&p, n * sizeof(__half)));
  return p;
}

void build(Model& m) {
  const Config& c = m.cfg;
  CUDA_CHECK(cudaStreamCreate(&m.stream));
  CUBLAS_CHECK(cublasCreate(&m.blas));
  CUBLAS_CHECK(cublasSetStream(m.blas, m.stream));
  uint64_t s = c.seed * 1000;
  const size_t H = c.hidden, D = c.head_dim, I = c.intermediate, V = c.vocab;
  const size_t qd = size_t(c.heads) * D, kvd = size_t(c.kv_heads) * D;
  const int max_t = c.prompt + c.new_tokens;
  const float w_std = 0.02f;
  m.embedding = alloc_random(V * H, ++s, 0, 1);
  m.lm_head = alloc_random(V * H, ++s, 0, w_std);
  m.norm_final = alloc_random(H, ++s, 1, 0.1f);
  for (int l = 0; l < c.layers; ++l) {
    Layer L;
    L.wq = alloc_random(qd * H, ++s, 0, w_std);
    L.wk = alloc_random(kvd * H, ++s, 0, w_std);
    L.wv = alloc_random(kvd * H, ++s, 0, w_std);
    L.wo = alloc_random(H * qd, ++s, 0, w_std);
    L.w_gate_up = alloc_random(2 * I * H, ++s, 0, w_std);
    L.w_down = alloc_random(H * I, ++s, 0, w_std);
    L.norm_in = alloc_random(H, ++s, 1, 0.1f);
    L.norm_post = alloc_random(H, ++s, 1, 0.1f);
    L.k_cache = alloc_half(size_t(max_t) * kvd);
    L.v_cache = alloc_half(size_t(max_t) * kvd);
    m.layers.push_back(L);
  }
  // cos/sin cache: row p holds head_dim/2 cosines then head_dim/2 sines.
  std::vector<__half> cs(size_t(max_t) * D);
  for (int p = 0; p < max_t; ++p)
    for (size_t j = 0; j < D / 2; ++j) {
      double freq = std::pow(double(c.rope_theta), -2.0 * double(j) / double(D));
      cs[p * D + j] = __float2half(float(std::cos(p * freq)));
      cs[p * D + D / 2 + j] = __float2half(float(std::sin(p * freq)));
    }
  m.cos_sin = alloc_half(cs.size());
  CUDA_CHECK(cudaMemcpy(m.cos_sin, cs.data(), cs.size() * sizeof(__half), cudaMemcpyHostToDevice));
  std::vector<int> pos(max_t);
  for (int p = 0; p < max_t; ++p) pos[p] = p;
  CUDA_CHECK(cudaMalloc(&m.positions, max_t * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(m.positions, pos.data(), max_t * sizeof(int), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMalloc(&m.tokens, max_t * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&m.chosen, c.new_tokens * sizeof(float)));
  const size_t T = c.prompt;
  m.hidden = alloc_half(T * H);
  m.residual = alloc_half(T * H);
  m.q = alloc_half(T * qd);
  m.attn = alloc_half(T * qd);
  m.gate_up = alloc_half(T * 2 * I);
  m.act = alloc_half(T * I);
  m.logits = alloc_half(V);
  m.probs = alloc_half(V);
  CUDA_CHECK(cudaDeviceSynchronize());
}

// y[T, N] = x[T, K] @ w[N, K]^T, all row-major (nn.Linear), fp32 accumulation.
void linear(Model& m, __half* y, const __half* x, const __half* w, int T, int N, int K) {
  const float one = 1, zero = 0;
  CUBLAS_CHECK(cublasGemmEx(m.blas, CUBLAS_OP_T, CUBLAS_OP_N, N, T, K, &one, w, CUDA_R_16F, K, x,
                            CUDA_R_16F, K, &zero, y, CUDA_R_16F, N, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

// Runs positions start..start+T-1 through the model and samples the token
// of position start+T (written to tokens[start + T]).
void forward(Model& m, int start, int T, int sample_index) {
  const Config& c = m.cfg;
  const int H = c.hidden, D = c.head_dim, I = c.intermediate;
  const int qd = c.heads * D, kvd = c.kv_heads * D;
  cudaStream_t st = m.stream;
  embed<<<T, 256, 0, st>>>(m.hidden, m.embedding, m.tokens + start, T, H);
  for (int l = 0; l < c.layers; ++l) {
    Layer& L = m.layers[l];
    if (l == 0) {  // the residual stream starts as the embeddings
      CUDA_CHECK(cudaMemcpyAsync(m.residual, m.hidden, size_t(T) * H * sizeof(__half),
                                 cudaMemcpyDeviceToDevice, st));
      launch_rmsnorm(m.hidden, m.residual, L.norm_in, T, H, c.eps, st);
    } else {
      launch_fused_add_rmsnorm(m.hidden, m.residual, L.norm_in, T, H, c.eps, st);
    }
    __half* k = L.k_cache + size_t(start) * kvd;
    __half* v = L.v_cache + size_t(start) * kvd;
    linear(m, m.q, m.hidden, L.wq, T, qd, H);
    linear(m, k, m.hidden, L.wk, T, kvd, H);
    linear(m, v, m.hidden, L.wv, T, kvd, H);
    launch_rotary_embedding(m.q, k, m.positions + start, m.cos_sin, T, c.heads, c.kv_heads, D, st);
    const int threads = 128;
    size_t smem = (D + threads + start + T) * sizeof(float);
    attention<<<dim3(T, c.heads), threads, smem, st>>>(m.attn, m.q, L.k_cache, L.v_cache, start,
                                                       c.heads, c.kv_heads, D,
                                                       1.0f / std::sqrt(float(D)));
    linear(m, m.hidden, m.attn, L.wo, T, H, qd);
    launch_fused_add_rmsnorm(m.hidden, m.residual, L.norm_post, T, H, c.eps, st);
    linear(m, m.gate_up, m.hidden, L.w_gate_up, T, 2 * I, H);
    launch_silu_and_mul(m.act, m.gate_up, T, I, st);
    linear(m, m.hidden, m.act, L.w_down, T, H, I);
  }
  launch_fused_add_rmsnorm(m.hidden, m.residual, m.norm_final, T, H, c.eps, st);
  // Only the last position's logits are needed to sample.
  launch_gemv(m.logits, m.hidden + size_t(T - 1) * H, m.lm_head, 1, c.vocab, H, st);
  launch_softmax(m.probs, m.logits, 1, c.vocab, st);
  argmax_sample<<<1, 1024, 0, st>>>(m.tokens, start + T, m.chosen + sample_index, m.logits, m.probs,
                                    c.vocab);
  CUDA_CHECK(cudaGetLastError());
}

struct Timing {
  float prefill_ms = 0, decode_ms = 0;
};

Timing generate(Model& m, const std::vector<int>& prompt) {
  const Config& c = m.cfg;
  CUDA_CHECK(
      cudaMemcpy(m.tokens, prompt.data(), prompt.size() * sizeof(int), cudaMemcpyHostToDevice));
  cudaEvent_t e0, e1, e2;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  CUDA_CHECK(cudaEventCreate(&e2));
  nvtxRangePushA("prefill");
  CUDA_CHECK(cudaEventRecord(e0, m.stream));
  forward(m, 0, c.prompt, 0);
  CUDA_CHECK(cudaEventRecord(e1, m.stream));
  CUDA_CHECK(cudaEventSynchronize(e1));
  nvtxRangePop();
  nvtxRangePushA("decode");
  for (int i = 1; i < c.new_tokens; ++i) forward(m, c.prompt + i - 1, 1, i);
  CUDA_CHECK(cudaEventRecord(e2, m.stream));
  CUDA_CHECK(cudaEventSynchronize(e2));
  nvtxRangePop();
  Timing t;
  CUDA_CHECK(cudaEventElapsedTime(&t.prefill_ms, e0, e1));
  CUDA_CHECK(cudaEventElapsedTime(&t.decode_ms, e1, e2));
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  cudaEventDestroy(e2);
  return t;
}

void usage() {
  std::fprintf(stderr,
               "usage: llama --out FILE [--config 8b|small] [--layers N] [--prompt P] "
               "[--new-tokens N] [--repeat R] [--seed S]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  std::string out;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) usage();
    std::string v = argv[++i];
    if (a == "--out")
      out = v;
    else if (a == "--layers")
      c.layers = std::atoi(v.c_str());
    else if (a == "--prompt")
      c.prompt = std::atoi(v.c_str());
    else if (a == "--new-tokens")
      c.new_tokens = std::atoi(v.c_str());
    else if (a == "--repeat")
      c.repeat = std::atoi(v.c_str());
    else if (a == "--seed")
      c.seed = std::strtoull(v.c_str(), nullptr, 10);
    else if (a == "--config" && v == "small") {
      // For runs under compute-sanitizer: every code path, little work.
      c.hidden = 512, c.heads = 8, c.kv_heads = 2, c.head_dim = 64, c.intermediate = 1408;
      c.vocab = 4099, c.layers = 2;
    } else if (a != "--config" || v != "8b")
      usage();
  }
  if (out.empty() || c.layers < 1 || c.prompt < 1 || c.new_tokens < 1 || c.repeat < 1 ||
      c.heads % c.kv_heads != 0)
    usage();
  Model m;
  m.cfg = c;
  build(m);
  std::vector<int> prompt(c.prompt);
  uint64_t x = c.seed * 6364136223846793005ull + 1442695040888963407ull;
  for (int& t : prompt) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    t = int((x >> 33) % uint64_t(c.vocab));
  }
  generate(m, prompt);  // warm-up: cuBLAS heuristics, first launches
  std::vector<Timing> timings;
  for (int r = 0; r < c.repeat; ++r) timings.push_back(generate(m, prompt));

  const int total = c.prompt + c.new_tokens;
  std::vector<int> tokens(total);
  std::vector<float> chosen(c.new_tokens);
  std::vector<__half> logits(c.vocab);
  CUDA_CHECK(cudaMemcpy(tokens.data(), m.tokens, total * sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(chosen.data(), m.chosen, chosen.size() * sizeof(float), cudaMemcpyDeviceToHost));
  CUDA_CHECK(
      cudaMemcpy(logits.data(), m.logits, logits.size() * sizeof(__half), cudaMemcpyDeviceToHost));
  FILE* f = std::fopen(out.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "llama: cannot write %s\n", out.c_str());
    return 3;
  }
  std::fprintf(f,
               "{\"config\": {\"hidden\": %d, \"heads\": %d, \"kv_heads\": %d, \"head_dim\": %d, "
               "\"intermediate\": %d, \"vocab\": %d, \"layers\": %d, \"prompt\": %d, "
               "\"new_tokens\": %d, \"seed\": %llu},\n",
               c.hidden, c.heads, c.kv_heads, c.head_dim, c.intermediate, c.vocab, c.layers,
               c.prompt, c.new_tokens, (unsigned long long)c.seed);
  std::fprintf(f, "\"tokens\": [");
  for (int i = c.prompt; i < total; ++i)
    std::fprintf(f, "%s%d", i > c.prompt ? ", " : "", tokens[i]);
  std::fprintf(f, "],\n\"token_probs\": [");
  for (size_t i = 0; i < chosen.size(); ++i) std::fprintf(f, "%s%.6g", i ? ", " : "", chosen[i]);
  std::fprintf(f, "],\n\"latency_ms\": {\"prefill\": [");
  for (size_t i = 0; i < timings.size(); ++i)
    std::fprintf(f, "%s%.4f", i ? ", " : "", timings[i].prefill_ms);
  std::fprintf(f, "], \"decode\": [");
  for (size_t i = 0; i < timings.size(); ++i)
    std::fprintf(f, "%s%.4f", i ? ", " : "", timings[i].decode_ms);
  std::fprintf(f, "]},\n\"logits\": [");
  for (int i = 0; i < c.vocab; ++i)
    std::fprintf(f, "%s%.5g", i ? ", " : "", __half2float(logits[i]));
  std::fprintf(f, "]}\n");
  std::fclose(f);
  std::printf("llama: prefill %.3f ms (%d tokens), decode %.3f ms (%d tokens); wrote %s\n",
              timings.back().prefill_ms, c.prompt, timings.back().decode_ms, c.new_tokens - 1,
              out.c_str());
  return 0;
}
