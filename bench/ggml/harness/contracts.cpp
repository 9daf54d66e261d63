#include "contracts.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>

namespace ggml_harness {

bool since(const std::string& era, const std::string& commit) {
  const auto& order = eras();
  auto at = [&](const std::string& c) {
    auto it = std::find(order.begin(), order.end(), c);
    if (it == order.end()) throw std::runtime_error("unknown era " + c);
    return it - order.begin();
  };
  return at(era) >= at(commit);
}

namespace {

// Variables by position: rms_norm / norm: ncols, nrows, nch, ld, add_rows;
// group_norm: w, h, c, n, groups; soft_max: ncols, rows, heads; sum rows and
// argmax: ncols.
const std::map<std::string, std::vector<Shape>>& all_shapes() {
  static const std::vector<Shape> rows_4096 = {
      {"decode-1x4096", true, {4096, 1, 1, 4096, 1}},
      {"decode-64x4096", true, {4096, 64, 1, 4096, 1}},
      {"prefill-512x4096", true, {4096, 512, 1, 4096, 1}},
      {"prefill-4096x4096", true, {4096, 4096, 1, 4096, 1}},
      {"prefill-1024x8192", true, {8192, 1024, 1, 8192, 1}},
      {"strided-16x8x4096", false, {4096, 16, 8, 4160, 1}},
      {"odd-7x1025", false, {1025, 7, 1, 1025, 1}},
      {"edge-1x1024", false, {1024, 1, 1, 1024, 1}}};
  static const std::map<std::string, std::vector<Shape>> shapes = {
      {"rms_norm_f32", rows_4096},
      {"rms_norm_mul_f32", rows_4096},
      {"rms_norm_f32_small",
       {{"qk-norm-decode", true, {128, 32, 1, 128, 1}},
        {"qk-norm-prefill-512", true, {128, 32, 512, 128, 1}},
        {"prefill-512x896", true, {896, 512, 1, 896, 1}},
        {"odd-3x1000", false, {1000, 3, 1, 1000, 1}},
        {"strided-5x2x100", false, {100, 5, 2, 132, 1}},
        {"edge-1x1", false, {1, 1, 1, 1, 1}}}},
      {"rms_norm_mul_add_f32",
       {{"decode-1x4096-bias", true, {4096, 1, 1, 4096, 1}},
        {"decode-64x4096-residual", true, {4096, 64, 1, 4096, 64}},
        {"prefill-512x4096-bias", true, {4096, 512, 1, 4096, 1}},
        {"prefill-4096x4096-residual", true, {4096, 4096, 1, 4096, 4096}},
        {"odd-7x1025-residual", false, {1025, 7, 1, 1025, 7}}}},
      {"norm_f32",
       {{"decode-1x4096", true, {4096, 1, 1, 4096, 1}},
        {"prefill-512x4096", true, {4096, 512, 1, 4096, 1}},
        {"prefill-2048x1024", true, {1024, 2048, 1, 1024, 1}},
        {"odd-7x1025", false, {1025, 7, 1, 1025, 1}}}},
      {"group_norm_f32",
       {{"sd-64x64x320", true, {64, 64, 320, 1, 32}},
        {"sd-32x32x640-batch2", true, {32, 32, 640, 2, 32}},
        {"odd-33x31x10", false, {33, 31, 10, 1, 4}}}},
      {"soft_max_f32",
       {{"decode-kv1000", true, {1000, 1, 32}},
        {"decode-kv3000", true, {3000, 1, 32}},
        {"decode-kv12000", true, {12000, 1, 32}},
        {"prefill-256x1500", true, {1500, 256, 32}},
        {"prefill-512x513", true, {513, 512, 32}},
        {"odd-33", false, {33, 3, 2}},
        {"edge-1", false, {1, 1, 1}}}},
      {"soft_max_f32_smem_optin",
       {{"decode-kv16384", true, {16384, 1, 32}},
        {"decode-kv32768", true, {32768, 1, 32}},
        {"prefill-8x16384", true, {16384, 8, 32}},
        {"odd-kv50001", false, {50001, 1, 8}}}},
      {"soft_max_f32_global",
       {{"decode-kv65536", true, {65536, 1, 32}}, {"decode-kv131072", true, {131072, 1, 8}}}},
      {"reduce_rows_f32_1row",
       {{"row-4096", true, {4096}},
        {"row-65536", true, {65536}},
        {"row-262144", true, {262144}},
        {"odd-100003", false, {100003}},
        {"edge-33", false, {33}}}},
      {"reduce_rows_f32_4096rows",
       {{"rows-4096x4096", true, {4096}},
        {"rows-4096x512", true, {512}},
        {"odd-4096x1025", false, {1025}}}},
      {"argmax_f32",
       {{"vocab-32000", true, {32000}},
        {"vocab-128256", true, {128256}},
        {"vocab-151936", true, {151936}},
        {"vocab-262144", true, {262144}},
        {"odd-50257", false, {50257}},
        {"edge-1", false, {1}}}},
  };
  return shapes;
}

template <class T>
LaunchSpec::Param value(T v) {
  LaunchSpec::Param p;
  p.bytes.resize(sizeof(T));
  std::memcpy(p.bytes.data(), &v, sizeof(T));
  return p;
}
LaunchSpec::Param buffer(int index) {
  LaunchSpec::Param p = value<uint64_t>(0);
  p.buffer = index;
  return p;
}
LaunchSpec::Param null_pointer() {
  LaunchSpec::Param p = value<uint64_t>(0);
  p.null = true;
  return p;
}

// common.cuh's init_fastdiv_values (58450487): {mp, L, d}.
struct Uint3 {
  uint32_t x, y, z;
};
Uint3 fastdiv_values(uint32_t d) {
  uint32_t L = 0;
  while (L < 32 && (uint32_t{1} << L) < d) L++;
  const uint32_t mp = uint32_t((uint64_t{1} << 32) * ((uint64_t{1} << L) - d) / d + 1);
  return {mp, L, d};
}

// soft_max_params (softmax.cu, e689b63c): the layout nvcc gives it.
struct SoftMaxParams {
  int64_t nheads;
  uint32_t n_head_log2;
  int64_t ncols, nrows_x, nrows_y, ne00, ne01, ne02, ne03, nb11, nb12, nb13, ne12, ne13;
  float scale, max_bias, m0, m1;
};
static_assert(sizeof(SoftMaxParams) == 128, "soft_max_params is 128 bytes");

unsigned pow2_block(int64_t ncols) {  // soft_max_f32_cuda's nth
  unsigned nth = 32;
  while (nth < ncols && nth < 1024) nth *= 2;
  return nth;
}

int64_t pad32(int64_t x) {
  return (x + 31) & ~int64_t{31};
}

// rms_norm_f32's operand parameters (mul or add) at `era`.
void operand(std::vector<LaunchSpec::Param>& ps, const std::string& era, int buffer_index,
             const int64_t strides[3], const uint32_t extents[4]) {
  ps.push_back(buffer_index >= 0 ? buffer(buffer_index) : null_pointer());
  for (int i = 0; i < 3; ++i) ps.push_back(value<int64_t>(buffer_index >= 0 ? strides[i] : 0));
  for (int i = 0; i < 4; ++i) {
    const uint32_t e = buffer_index >= 0 ? extents[i] : 0;
    if (since(era, "58450487"))
      ps.push_back(value<Uint3>(e ? fastdiv_values(e) : Uint3{0, 0, 0}));
    else
      ps.push_back(value<int32_t>(int32_t(e)));
  }
}

KernelSpec rms_norm(const std::string& kernel, const std::string& era, const Shape& s) {
  const int64_t ncols = s.v[0], nrows = s.v[1], nch = s.v[2], ld = s.v[3], add_rows = s.v[4];
  const bool mul = kernel == "rms_norm_mul_f32" || kernel == "rms_norm_mul_add_f32";
  const bool add = kernel == "rms_norm_mul_add_f32";
  KernelSpec k;
  k.buffers = {{"x", nch * nrows * ld, 4, false, false},
               {"dst", nch * nrows * ncols, 4, true, false}};
  if (mul) k.buffers.push_back({"mul", ncols, 4, false, false});
  if (add) k.buffers.push_back({"add", ncols * add_rows, 4, false, false});
  auto& ps = k.launch.params;
  ps = {buffer(0),
        buffer(1),
        value<int32_t>(int32_t(ncols)),
        value<int64_t>(ld),
        value<int64_t>(nrows * ld),
        value<int64_t>(nch * nrows * ld),
        value<float>(1e-6f)};
  if (since(era, "63d8a6ba")) {
    const int64_t ms[3] = {ncols, ncols, ncols};
    const uint32_t me[4] = {uint32_t(ncols), 1, 1, 1};
    operand(ps, era, mul ? 2 : -1, ms, me);
  }
  if (since(era, "81415da3")) {
    const int64_t as[3] = {ncols, ncols * add_rows, ncols * add_rows};
    const uint32_t ae[4] = {uint32_t(ncols), uint32_t(add_rows), 1, 1};
    operand(ps, era, add ? 3 : -1, as, ae);
  }
  const unsigned block =
      kernel == "rms_norm_f32_small" ? (since(era, "58450487") ? 256 : 32) : 1024;
  k.launch.grid[0] = unsigned(nrows), k.launch.grid[1] = unsigned(nch), k.launch.grid[2] = 1;
  k.launch.block[0] = block, k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = since(era, "f3a50ebb") && block > 32 ? 32 * 4 : 0;
  k.atol = 1e-6, k.rtol = 2e-5;
  return k;
}

KernelSpec norm(const std::string& era, const Shape& s) {
  const int64_t ncols = s.v[0], nrows = s.v[1], nch = s.v[2], ld = s.v[3];
  KernelSpec k;
  k.buffers = {{"x", nch * nrows * ld, 4, false, false},
               {"dst", nch * nrows * ncols, 4, true, false}};
  k.launch.params = {buffer(0),
                     buffer(1),
                     value<int32_t>(int32_t(ncols)),
                     value<int64_t>(ld),
                     value<int64_t>(nrows * ld),
                     value<int64_t>(nch * nrows * ld),
                     value<float>(1e-5f)};
  k.launch.grid[0] = unsigned(nrows), k.launch.grid[1] = unsigned(nch), k.launch.grid[2] = 1;
  k.launch.block[0] = 1024, k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = since(era, "f3a50ebb") ? 32 * 8 : 0;  // float2 s_sum2[32]
  k.atol = 1e-5, k.rtol = 2e-5;
  return k;
}

KernelSpec group_norm(const std::string& era, const Shape& s) {
  const int64_t w = s.v[0], h = s.v[1], c = s.v[2], n = s.v[3], groups = s.v[4];
  const int64_t ne = w * h * c * n, group_size = w * h * ((c + groups - 1) / groups);
  KernelSpec k;
  k.buffers = {{"x", ne, 4, false, false}, {"dst", ne, 4, true, false}};
  k.launch.params = {buffer(0), buffer(1), value<int32_t>(int32_t(group_size)),
                     value<int32_t>(int32_t(ne)), value<float>(1e-6f)};
  k.launch.grid[0] = unsigned(groups * n), k.launch.grid[1] = k.launch.grid[2] = 1;
  k.launch.block[0] = 1024, k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = since(era, "3e12f441") ? 2 * 32 * 4 : since(era, "f3a50ebb") ? 32 * 4 : 0;
  k.atol = 1e-5, k.rtol = 1e-4;
  return k;
}

KernelSpec soft_max(const std::string& kernel, const std::string& era, const Shape& s) {
  const int64_t ncols = s.v[0], rows = s.v[1], heads = s.v[2];
  const float scale = 0.08838834764831845f;
  const uint32_t n_head_log2 = 1u << uint32_t(std::floor(std::log2(double(heads))));
  KernelSpec k;
  k.buffers = {{"x", ncols * rows * heads, 4, false, false},
               {"mask", ncols * rows, 4, false, false},
               {"dst", ncols * rows * heads, 4, true, false}};
  auto& ps = k.launch.params;
  if (!since(era, "e689b63c")) {
    ps = {buffer(0),
          buffer(1),
          buffer(2),
          value<int32_t>(int32_t(ncols)),
          value<int32_t>(int32_t(rows)),
          value<float>(scale),
          value<float>(0.0f),
          value<float>(1.0f),
          value<float>(1.0f),
          value<uint32_t>(n_head_log2)};
    k.launch.grid[0] = unsigned(rows * heads), k.launch.grid[1] = k.launch.grid[2] = 1;
  } else {
    SoftMaxParams p{};
    p.nheads = heads, p.n_head_log2 = n_head_log2, p.ncols = ncols, p.nrows_x = rows * heads;
    p.nrows_y = rows, p.ne00 = ncols, p.ne01 = rows, p.ne02 = heads, p.ne03 = 1;
    p.nb11 = ncols * 4, p.nb12 = ncols * rows * 4, p.nb13 = ncols * rows * 4, p.ne12 = 1,
    p.ne13 = 1;
    p.scale = scale, p.max_bias = 0.0f, p.m0 = 1.0f, p.m1 = 1.0f;
    ps = {buffer(0), buffer(1)};
    if (since(era, "3b145175")) ps.push_back(null_pointer());  // sinks
    ps.push_back(buffer(2));
    ps.push_back(value<SoftMaxParams>(p));
    k.launch.grid[0] = unsigned(rows), k.launch.grid[1] = unsigned(heads), k.launch.grid[2] = 1;
  }
  const bool use_shared =
      kernel == "soft_max_f32" || (kernel == "soft_max_f32_smem_optin" && since(era, "91f96a96"));
  k.launch.block[0] = pow2_block(ncols), k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = unsigned(use_shared ? (pad32(ncols) + 32) * 4 : 32 * 4);
  k.atol = 1e-8, k.rtol = 1e-4;
  return k;
}

KernelSpec reduce_rows(const std::string& kernel, const std::string& era, const Shape& s, int sms) {
  const int64_t ncols = s.v[0], nrows = kernel == "reduce_rows_f32_1row" ? 1 : 4096;
  KernelSpec k;
  k.buffers = {{"x", nrows * ncols, 4, false, false}, {"dst", nrows, 4, true, false}};
  k.launch.params = {buffer(0), buffer(1), value<int32_t>(int32_t(ncols))};
  unsigned block = 32;
  if (since(era, "e9cae642")) block = nrows / sms < 2 ? 512 : (ncols < 1024 ? 32 : 128);
  k.launch.grid[0] = unsigned(nrows), k.launch.grid[1] = k.launch.grid[2] = 1;
  k.launch.block[0] = block, k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = 0;
  k.atol = 2e-2, k.rtol = 1e-5;
  return k;
}

KernelSpec argmax(const Shape& s) {
  const int64_t ncols = s.v[0];
  KernelSpec k;
  k.buffers = {{"x", ncols, 4, false, false}, {"dst", 1, 4, true, true}};
  k.launch.params = {buffer(0), buffer(1), value<int64_t>(ncols)};
  k.launch.grid[0] = 1, k.launch.grid[1] = k.launch.grid[2] = 1;
  k.launch.block[0] = unsigned(std::min<int64_t>(1024, pad32(ncols)));
  k.launch.block[1] = k.launch.block[2] = 1;
  k.launch.shared_bytes = 0;
  k.atol = 0, k.rtol = 0;
  return k;
}

}  // namespace

const std::vector<Shape>& shapes_of(const std::string& kernel) {
  auto it = all_shapes().find(kernel);
  if (it == all_shapes().end()) throw std::runtime_error("no shapes for kernel " + kernel);
  return it->second;
}

KernelSpec contract(const std::string& kernel, const std::string& era, const Shape& shape,
                    int sms) {
  if (kernel.rfind("rms_norm", 0) == 0) return rms_norm(kernel, era, shape);
  if (kernel == "norm_f32") return norm(era, shape);
  if (kernel == "group_norm_f32") return group_norm(era, shape);
  if (kernel.rfind("soft_max_f32", 0) == 0) return soft_max(kernel, era, shape);
  if (kernel.rfind("reduce_rows_f32", 0) == 0) return reduce_rows(kernel, era, shape, sms);
  if (kernel == "argmax_f32") return argmax(shape);
  throw std::runtime_error("no contract for kernel " + kernel);
}

int64_t rows_of(const std::string& kernel, const Shape& s) {
  if (kernel.rfind("rms_norm", 0) == 0 || kernel == "norm_f32") return s.v[1] * s.v[2];
  if (kernel == "group_norm_f32") return 0;  // not spot-checked: a group is not a row
  if (kernel.rfind("soft_max_f32", 0) == 0) return s.v[1] * s.v[2];
  if (kernel == "reduce_rows_f32_1row" || kernel == "argmax_f32") return 1;
  if (kernel == "reduce_rows_f32_4096rows") return 4096;
  return 0;
}

std::string spot_check(const std::string& kernel, const Shape& s,
                       const std::vector<std::vector<unsigned char>>& buffers, int64_t row,
                       double atol, double rtol) {
  auto f = [&](int b) { return reinterpret_cast<const float*>(buffers[b].data()); };
  std::vector<double> want;
  const float* got = nullptr;
  if (kernel.rfind("rms_norm", 0) == 0 || kernel == "norm_f32") {
    const int64_t ncols = s.v[0], nrows = s.v[1], ld = s.v[3];
    const float* x = f(0) + (row / nrows) * nrows * ld + (row % nrows) * ld;
    got = f(1) + row * ncols;
    double sum = 0, mean = 0;
    for (int64_t c = 0; c < ncols; ++c) mean += x[c];
    mean /= ncols;
    const bool layer = kernel == "norm_f32";
    for (int64_t c = 0; c < ncols; ++c)
      sum += layer ? (x[c] - mean) * (x[c] - mean) : double(x[c]) * x[c];
    const double scale = 1.0 / std::sqrt(sum / ncols + (layer ? 1e-5 : 1e-6));
    const int64_t add_row = (row % nrows) % s.v[4];
    for (int64_t c = 0; c < ncols; ++c) {
      double y = layer ? (x[c] - mean) * scale : x[c] * scale;
      if (kernel == "rms_norm_mul_f32" || kernel == "rms_norm_mul_add_f32") y *= f(2)[c];
      if (kernel == "rms_norm_mul_add_f32") y += f(3)[add_row * ncols + c];
      want.push_back(y);
    }
  } else if (kernel.rfind("soft_max_f32", 0) == 0) {
    const int64_t ncols = s.v[0], rows = s.v[1];
    const float* x = f(0) + row * ncols;
    const float* mask = f(1) + (row % rows) * ncols;
    got = f(2) + row * ncols;
    double max = -INFINITY, sum = 0;
    for (int64_t c = 0; c < ncols; ++c) max = std::max(max, x[c] * 0.08838834764831845 + mask[c]);
    for (int64_t c = 0; c < ncols; ++c) sum += std::exp(x[c] * 0.08838834764831845 + mask[c] - max);
    for (int64_t c = 0; c < ncols; ++c)
      want.push_back(std::exp(x[c] * 0.08838834764831845 + mask[c] - max) / sum);
  } else if (kernel.rfind("reduce_rows_f32", 0) == 0) {
    const int64_t ncols = s.v[0];
    double sum = 0;
    for (int64_t c = 0; c < ncols; ++c) sum += f(0)[row * ncols + c];
    want.push_back(sum);
    got = f(1) + row;
  } else if (kernel == "argmax_f32") {
    const int64_t ncols = s.v[0];
    int64_t best = 0;
    for (int64_t c = 1; c < ncols; ++c)
      if (f(0)[c] > f(0)[best]) best = c;
    const int32_t index = *reinterpret_cast<const int32_t*>(buffers[1].data());
    return index == best ? ""
                         : "argmax " + std::to_string(index) + ", expected " + std::to_string(best);
  } else {
    return "";
  }
  for (size_t c = 0; c < want.size(); ++c)
    if (!(std::fabs(got[c] - want[c]) <= atol + rtol * std::fabs(want[c])))
      return "row " + std::to_string(row) + " element " + std::to_string(c) + ": " +
             std::to_string(got[c]) + ", expected " + std::to_string(want[c]);
  return "";
}

}  // namespace ggml_harness
