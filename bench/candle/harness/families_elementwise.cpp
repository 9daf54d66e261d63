// candle's elementwise kernels (unary.cu, affine.cu, ternary.cu) and its
// FastReduce kernels (reduce.cu), as candle-core/src/cuda_backend launches
// them: LaunchConfig::for_num_elems(numel) (blocks of 1024) for the former,
// one block of next_power_of_two(min(1024, n)) threads per output for the
// latter, and the layout as `info` = dims then strides (size_t).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "families_impl.h"
#include "host_data.h"

namespace candle_ab {
namespace {

// A tensor layout from the spec: nd dims in the last nd of four slots
// (d0..d3, strides s0..s3), row-major, the last dim fastest.
struct Layout {
  int nd = 1;
  long long d[4] = {1, 1, 1, 1}, s[4] = {0, 0, 0, 1};
  size_t numel() const { return size_t(d[0] * d[1] * d[2] * d[3]); }
  size_t extent() const {
    size_t e = 1;
    for (int k = 0; k < 4; ++k) e += size_t((d[k] - 1) * s[k]);
    return e;
  }
  size_t offset(size_t i) const {
    size_t off = 0;
    for (int k = 3; k >= 4 - nd; --k) {
      off += (i % size_t(d[k])) * size_t(s[k]);
      i /= size_t(d[k]);
    }
    return off;
  }
  // candle's Shape::is_contiguous: before 66f0a4eee every stride must be the
  // row-major one; from it on, dims of size 1 may have any stride.
  bool contiguous(bool relaxed) const {
    long long acc = 1;
    for (int k = 3; k >= 4 - nd; --k) {
      if (!(relaxed && d[k] <= 1) && s[k] != acc) return false;
      acc *= d[k];
    }
    return true;
  }
  // dims, then `sets` copies of the strides (ternary kernels take one per tensor)
  std::vector<uint64_t> info(int sets) const {
    std::vector<uint64_t> out;
    for (int k = 4 - nd; k < 4; ++k) out.push_back(uint64_t(d[k]));
    for (int r = 0; r < sets; ++r)
      for (int k = 4 - nd; k < 4; ++k) out.push_back(uint64_t(s[k]));
    return out;
  }
};

Layout layout_of(const Shape& sh) {
  Layout l;
  l.nd = int(sh.at("nd"));
  const char* dn[4] = {"d0", "d1", "d2", "d3"};
  const char* sn[4] = {"s0", "s1", "s2", "s3"};
  for (int k = 0; k < 4; ++k) {
    l.d[k] = sh.at(dn[k]);
    l.s[k] = sh.at(sn[k]);
  }
  return l;
}

Input info_input(const Layout& l, int sets) {
  std::vector<uint64_t> v = l.info(sets);
  Input in{"info", std::vector<uint8_t>(v.size() * 8), 0};
  std::memcpy(in.host.data(), v.data(), in.host.size());
  return in;
}

// The info pointer a launcher of this version passes: "info=always" copies the
// layout for every launch; "info=strict" / "info=relaxed" pass NULL for a
// tensor that is contiguous by candle's check before / from 66f0a4eee
// (SlicePtrOrNull::params_from_layout, from b219903d0 on).
Param info_param(const std::string& variant, const Layout& l, const Problem& p) {
  if (variant == "info=strict" && l.contiguous(false)) return ptr(0);
  if (variant == "info=relaxed" && l.contiguous(true)) return ptr(0);
  if (variant != "info=always" && variant != "info=strict" && variant != "info=relaxed")
    throw std::runtime_error("unknown variant " + variant);
  return ptr(p.in("info").dev);
}

Elem elem_of(const std::string& dtype) {
  if (dtype == "f32") return Elem::kF32;
  if (dtype == "bf16") return Elem::kBF16;
  throw std::runtime_error("unsupported dtype " + dtype);
}

std::string mismatch(size_t i, double got, double want) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "element %zu is %.9g, expected %.9g", i, got, want);
  return buf;
}

// out[i] = f(x at index i), within atol + rtol * |ref|.
template <class F>
std::string check_map(const Layout& l, const Input& x, Elem in_e, Elem out_e, const uint8_t* out,
                      double atol, double rtol, F f) {
  for (size_t i : sample_indices(l.numel(), 1u << 20)) {
    const double want = f(elem_value(in_e, x.host.data(), l.offset(i)));
    const double got = elem_value(out_e, out, i);
    if (!(std::fabs(got - want) <= atol + rtol * std::fabs(want))) return mismatch(i, got, want);
  }
  return "";
}

class UnarySilu : public Family {
 public:
  explicit UnarySilu(Elem e) : e_(e) {}
  Problem make(const Shape& s, uint64_t seed) const override {
    Layout l = layout_of(s);
    Problem p;
    p.inputs.push_back(info_input(l, 1));
    p.inputs.push_back(random_input("inp", e_, l.extent(), seed));
    p.out_elem = e_;
    p.out_count = l.numel();
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    Layout l = layout_of(s);
    return {unsigned((l.numel() + 1023) / 1024),
            1024,
            {u64(l.numel()), u64(uint64_t(l.nd)), info_param(variant, l, p), ptr(p.in("inp").dev),
             ptr(out)}};
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    return check_map(layout_of(s), p.in("inp"), e_, e_, out, atol(), rtol(),
                     [](double x) { return x / (1 + std::exp(-x)); });
  }
  // bf16: exp, add and division each rounded to bf16, and the input: 4 roundings of 2^-8.
  double atol() const override { return e_ == Elem::kBF16 ? 1e-3 : 1e-6; }
  double rtol() const override { return e_ == Elem::kBF16 ? 1.6e-2 : 1e-5; }

 private:
  Elem e_;
};

// Tensor::affine with the manifest's scale and shift of an attention score.
constexpr float kMul = 0.08838834764831845f, kAdd = -0.5f;

class Affine : public Family {
 public:
  Problem make(const Shape& s, uint64_t seed) const override {
    Layout l = layout_of(s);
    Problem p;
    p.inputs.push_back(info_input(l, 1));
    p.inputs.push_back(random_input("inp", Elem::kF32, l.extent(), seed));
    p.out_count = l.numel();
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    Layout l = layout_of(s);
    return {unsigned((l.numel() + 1023) / 1024),
            1024,
            {u64(l.numel()), u64(uint64_t(l.nd)), info_param(variant, l, p), ptr(p.in("inp").dev),
             ptr(out), f32(kMul), f32(kAdd)}};
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    return check_map(layout_of(s), p.in("inp"), Elem::kF32, Elem::kF32, out, atol(), rtol(),
                     [](double x) { return x * kMul + kAdd; });
  }
  double atol() const override { return 1e-6; }
  double rtol() const override { return 1e-6; }
};

// fp8 e4m3 (bias 7, no infinities, 0x7f / 0xff NaN), as cuda_fp8.h converts it.
double e4m3_value(uint8_t b) {
  const int sign = b >> 7, e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return NAN;
  const double mag = e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1 + m / 8.0, e - 7);
  return sign ? -mag : mag;
}

// __nv_fp8_e4m3(float): round to nearest even, saturating to +-448, NaN to 0x7f.
uint8_t e4m3_of(float f) {
  if (std::isnan(f)) return 0x7f;
  const uint8_t sign = std::signbit(f) ? 0x80 : 0;
  const double a = std::fabs(double(f));
  uint8_t best = 0;
  for (uint8_t c = 1; c <= 0x7e; ++c) {
    const double d = std::fabs(e4m3_value(c) - a), db = std::fabs(e4m3_value(best) - a);
    if (d < db || (d == db && (c & 1) == 0)) best = c;
  }
  return best | sign;
}

class AffineF8 : public Family {
 public:
  static constexpr uint8_t kMul8 = 0x40, kAdd8 = 0x30;  // 2.0 and 0.5 in e4m3
  Problem make(const Shape& s, uint64_t seed) const override {
    Layout l = layout_of(s);
    Problem p;
    p.inputs.push_back(info_input(l, 1));
    p.inputs.push_back(random_input("inp", Elem::kU8, l.extent(), seed, uniform_draw(0, 256)));
    p.out_elem = Elem::kU8;
    p.out_count = l.numel();
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    Layout l = layout_of(s);
    return {unsigned((l.numel() + 1023) / 1024),
            1024,
            {u64(l.numel()), u64(uint64_t(l.nd)), info_param(variant, l, p), ptr(p.in("inp").dev),
             ptr(out), u8(kMul8), u8(kAdd8)}};
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    Layout l = layout_of(s);
    const Input& x = p.in("inp");
    for (size_t i : sample_indices(l.numel(), 1u << 18)) {
      const float v = std::fma(float(e4m3_value(x.host[l.offset(i)])), float(e4m3_value(kMul8)),
                               float(e4m3_value(kAdd8)));
      if (out[i] != e4m3_of(v)) return mismatch(i, out[i], e4m3_of(v));
    }
    return "";
  }
  double atol() const override { return 0; }
  double rtol() const override { return 0; }
};

class Where : public Family {
 public:
  Problem make(const Shape& s, uint64_t seed) const override {
    Layout l = layout_of(s);
    Problem p;
    p.inputs.push_back(info_input(l, 3));
    p.inputs.push_back(random_input("ids", Elem::kU8, l.extent(), seed, uniform_draw(0, 2)));
    p.inputs.push_back(random_input("t", Elem::kF32, l.extent(), seed + 1));
    p.inputs.push_back(random_input("f", Elem::kF32, l.extent(), seed + 2));
    p.out_count = l.numel();
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    if (variant != "info=always") throw std::runtime_error("where: unknown variant " + variant);
    Layout l = layout_of(s);
    return {unsigned((l.numel() + 1023) / 1024),
            1024,
            {u64(l.numel()), u64(uint64_t(l.nd)), ptr(p.in("info").dev), ptr(p.in("ids").dev),
             ptr(p.in("t").dev), ptr(p.in("f").dev), ptr(out)}};
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    Layout l = layout_of(s);
    const Input &ids = p.in("ids"), &t = p.in("t"), &f = p.in("f");
    for (size_t i : sample_indices(l.numel(), 1u << 20)) {
      const size_t o = l.offset(i);
      const double want = elem_value(Elem::kF32, (ids.host[o] ? t : f).host.data(), o);
      const double got = elem_value(Elem::kF32, out, i);
      if (got != want) return mismatch(i, got, want);
    }
    return "";
  }
  double atol() const override { return 0; }
  double rtol() const override { return 0; }
};

// max_u32, min_u8, argmax_f32 over the last dim of rows x cols.
class Reduce : public Family {
 public:
  explicit Reduce(std::string op) : op_(std::move(op)) {
    if (op_ == "max_u32")
      in_ = Elem::kU32, out_ = Elem::kU32;
    else if (op_ == "min_u8")
      in_ = Elem::kU8, out_ = Elem::kU8;
    else if (op_ == "argmax_f32")
      in_ = Elem::kF32, out_ = Elem::kU32;
    else
      throw std::runtime_error("unknown reduction " + op_);
  }
  Problem make(const Shape& s, uint64_t seed) const override {
    const size_t rows = s.at("rows"), cols = s.at("cols");
    Problem p;
    std::vector<uint64_t> info = {rows, cols, cols, 1};
    Input in{"info", std::vector<uint8_t>(32), 0};
    std::memcpy(in.host.data(), info.data(), 32);
    p.inputs.push_back(in);
    Draw draw;
    if (in_ == Elem::kU32) draw = uniform_draw(0, 4e9);
    if (in_ == Elem::kU8) draw = uniform_draw(0, 256);
    p.inputs.push_back(random_input("src", in_, rows * cols, seed, draw));
    p.out_elem = out_;
    p.out_count = rows;
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    if (variant != "-") throw std::runtime_error("reduce: unknown variant " + variant);
    const size_t rows = s.at("rows"), cols = s.at("cols");
    unsigned block = 1;
    while (block < std::min<size_t>(1024, cols)) block *= 2;
    return {unsigned(rows),
            block,
            {u64(rows * cols), u64(cols), u64(2), ptr(p.in("info").dev), ptr(p.in("src").dev),
             ptr(out)}};
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    const size_t cols = s.at("cols");
    const uint8_t* x = p.in("src").host.data();
    for (size_t r : sample_indices(s.at("rows"), 256)) {
      size_t best = 0;
      for (size_t c = 1; c < cols; ++c) {
        const double v = elem_value(in_, x, r * cols + c), b = elem_value(in_, x, r * cols + best);
        if (op_ == "min_u8" ? v < b : v > b) best = c;
      }
      const double want = op_ == "argmax_f32" ? double(best) : elem_value(in_, x, r * cols + best);
      const double got = elem_value(out_, out, r);
      if (got != want) return mismatch(r, got, want);
    }
    return "";
  }
  double atol() const override { return 0; }
  double rtol() const override { return 0; }

 private:
  std::string op_;
  Elem in_ = Elem::kF32, out_ = Elem::kF32;
};

}  // namespace

std::unique_ptr<Family> make_unary_silu(const std::string& dtype) {
  return std::make_unique<UnarySilu>(elem_of(dtype));
}
std::unique_ptr<Family> make_affine(const std::string& dtype) {
  if (dtype != "f32") throw std::runtime_error("affine: f32 only");
  return std::make_unique<Affine>();
}
std::unique_ptr<Family> make_affine_f8(const std::string& dtype) {
  if (dtype != "f8e4m3") throw std::runtime_error("affine_f8: f8e4m3 only");
  return std::make_unique<AffineF8>();
}
std::unique_ptr<Family> make_where(const std::string& dtype) {
  if (dtype != "u8_f32") throw std::runtime_error("where: u8_f32 only");
  return std::make_unique<Where>();
}
std::unique_ptr<Family> make_reduce(const std::string& op) {
  return std::make_unique<Reduce>(op);
}

}  // namespace candle_ab
