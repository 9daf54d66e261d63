// candle's row kernels in reduce.cu: rmsnorm and layernorm as candle-nn's
// RmsNorm / LayerNorm custom ops launch them (grid = rows; "v1": 1024
// threads, (src, dst, alpha[, beta], n_cols, eps); "v2", from 645459794:
// block_size = n_cols < 1024 ? 32 : 1024 threads, passed before eps), and the
// rotary embeddings as candle-nn's rotary_emb.rs launches them
// (LaunchConfig::for_num_elems(el / 2); "v2", from e3db30021, adds stride_b:
// h * t * d when cos/sin are per batch, else 0).
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "families_impl.h"
#include "host_data.h"

namespace candle_ab {
namespace {

Elem row_elem(const std::string& dtype) {
  if (dtype == "f32") return Elem::kF32;
  if (dtype == "bf16") return Elem::kBF16;
  throw std::runtime_error("unsupported dtype " + dtype);
}

std::string row_mismatch(size_t r, size_t c, double got, double want) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "row %zu col %zu is %.9g, expected %.9g", r, c, got, want);
  return buf;
}

constexpr float kEps = 1e-5f;

class Norm : public Family {
 public:
  Norm(Elem e, bool layer) : e_(e), layer_(layer) {}
  Problem make(const Shape& s, uint64_t seed) const override {
    const size_t rows = s.at("rows"), cols = s.at("cols");
    Problem p;
    p.inputs.push_back(random_input("src", e_, rows * cols, seed));
    p.inputs.push_back(random_input("alpha", e_, cols, seed + 1));
    if (layer_) p.inputs.push_back(random_input("beta", e_, cols, seed + 2));
    p.out_elem = e_;
    p.out_count = rows * cols;
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    const long long rows = s.at("rows"), cols = s.at("cols");
    Launch l{unsigned(rows), 1024, {ptr(p.in("src").dev), ptr(out), ptr(p.in("alpha").dev)}};
    if (layer_) l.params.push_back(ptr(p.in("beta").dev));
    l.params.push_back(i32(int32_t(cols)));
    if (variant == "v2") {
      l.block = cols < 1024 ? 32 : 1024;
      l.params.push_back(i32(int32_t(l.block)));
    } else if (variant != "v1") {
      throw std::runtime_error("norm: unknown variant " + variant);
    }
    l.params.push_back(f32(kEps));
    return l;
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    const size_t cols = s.at("cols");
    const uint8_t *x = p.in("src").host.data(), *a = p.in("alpha").host.data();
    const uint8_t* b = layer_ ? p.in("beta").host.data() : nullptr;
    for (size_t r : sample_indices(s.at("rows"), 64)) {
      double sum = 0, sq = 0;
      for (size_t c = 0; c < cols; ++c) {
        const double v = elem_value(e_, x, r * cols + c);
        sum += v;
        sq += v * v;
      }
      const double mean = layer_ ? sum / cols : 0;
      const double var = sq / cols - mean * mean;  // rmsnorm: the mean square
      const double scale = 1 / std::sqrt(var + kEps);
      for (size_t c = 0; c < cols; ++c) {
        double want = (elem_value(e_, x, r * cols + c) - mean) * scale * elem_value(e_, a, c);
        if (b) want += elem_value(e_, b, c);
        const double got = elem_value(e_, out, r * cols + c);
        if (!(std::fabs(got - want) <= atol() + rtol() * std::fabs(want)))
          return row_mismatch(r, c, got, want);
      }
    }
    return "";
  }
  // bf16 output: one rounding (2^-8 relative) of a float result; float: the f32 sums.
  double atol() const override { return e_ == Elem::kBF16 ? 2e-3 : 1e-5; }
  double rtol() const override { return e_ == Elem::kBF16 ? 8e-3 : 1e-4; }

 private:
  Elem e_;
  bool layer_;
};

// rope_i: pairs (2j, 2j + 1) of each (b, h) row of t * d; rope: halves (i, i + d / 2) of
// each (b, h, t) row of d; rope_thd: the same halves, src laid out (b, t, h, d). cos and
// sin are (t, d / 2), or (b, t, d / 2) when unbatched.
class Rope : public Family {
 public:
  explicit Rope(std::string kind) : kind_(std::move(kind)) {}
  Problem make(const Shape& s, uint64_t seed) const override {
    const size_t b = s.at("b"), h = s.at("h"), t = s.at("t"), d = s.at("d");
    const size_t cs = (unbatched(s) ? b : 1) * t * d / 2;
    Problem p;
    p.inputs.push_back(random_input("src", Elem::kBF16, b * h * t * d, seed));
    Draw angle = uniform_draw(-3.14159265358979, 3.14159265358979);
    angle.apply = [](double x) { return std::cos(x); };
    p.inputs.push_back(random_input("cos", Elem::kBF16, cs, seed + 1, angle));
    angle.apply = [](double x) { return std::sin(x); };
    p.inputs.push_back(random_input("sin", Elem::kBF16, cs, seed + 1, angle));
    p.out_elem = Elem::kBF16;
    p.out_count = b * h * t * d;
    return p;
  }
  Launch launch(const std::string& variant, const Shape& s, const Problem& p,
                CUdeviceptr out) const override {
    const uint32_t b = s.at("b"), h = s.at("h"), t = s.at("t"), d = s.at("d");
    const size_t el = size_t(b) * h * t * d;
    Launch l{unsigned((el / 2 + 1023) / 1024),
             1024,
             {ptr(p.in("src").dev), ptr(p.in("cos").dev), ptr(p.in("sin").dev), ptr(out)}};
    if (kind_ == "rope_thd") {
      for (uint32_t v : {b, t, h, d}) l.params.push_back(u32(v));
    } else {
      l.params.push_back(u32(b * h));
      l.params.push_back(u32(t * d));
      if (kind_ == "rope") l.params.push_back(u32(d));
    }
    if (variant == "v2")
      l.params.push_back(u32(unbatched(s) ? h * t * d : 0));
    else if (variant != "v1" || unbatched(s))
      throw std::runtime_error("rope: variant " + variant + " cannot launch shape " + s.name);
    return l;
  }
  std::string check(const Shape& s, const Problem& p, const uint8_t* out) const override {
    const size_t b = s.at("b"), h = s.at("h"), t = s.at("t"), d = s.at("d");
    const uint8_t *x = p.in("src").host.data(), *co = p.in("cos").host.data(),
                  *si = p.in("sin").host.data();
    // One rotated pair per (b, h, t, j < d / 2): the positions of its two elements.
    for (size_t pair : sample_indices(b * h * t * d / 2, 1u << 20)) {
      const size_t j = pair % (d / 2), ti = pair / (d / 2) % t, hi = pair / (d / 2 * t) % h,
                   bi = pair / (d / 2 * t * h);
      size_t i1, i2;
      if (kind_ == "rope_i") {
        i1 = ((bi * h + hi) * t + ti) * d + 2 * j, i2 = i1 + 1;
      } else if (kind_ == "rope") {
        i1 = ((bi * h + hi) * t + ti) * d + j, i2 = i1 + d / 2;
      } else {
        i1 = ((bi * t + ti) * h + hi) * d + j, i2 = i1 + d / 2;
      }
      const size_t ic = (unbatched(s) ? bi * t * d / 2 : 0) + ti * (d / 2) + j;
      const double x1 = elem_value(Elem::kBF16, x, i1), x2 = elem_value(Elem::kBF16, x, i2);
      const double c = elem_value(Elem::kBF16, co, ic), sn = elem_value(Elem::kBF16, si, ic);
      // Two products and a difference, each rounded to bf16 (8 significant bits: a relative
      // error of 2^-8 at most): the products' errors add up to 2^-8 of |x1| + |x2|, the
      // difference's to 2^-8 of |w| <= |x1| + |x2|.
      const double bound = 2.01 * 0x1.0p-8 * (std::fabs(x1) + std::fabs(x2)) + 1e-6;
      const double w1 = x1 * c - x2 * sn, w2 = x1 * sn + x2 * c;
      const double g1 = elem_value(Elem::kBF16, out, i1), g2 = elem_value(Elem::kBF16, out, i2);
      if (!(std::fabs(g1 - w1) <= bound)) return row_mismatch(i1 / d, i1 % d, g1, w1);
      if (!(std::fabs(g2 - w2) <= bound)) return row_mismatch(i2 / d, i2 % d, g2, w2);
    }
    return "";
  }
  double atol() const override { return 2e-2; }
  double rtol() const override { return 1.6e-2; }

 private:
  static bool unbatched(const Shape& s) {
    auto it = s.v.find("unbatched");
    return it != s.v.end() && it->second != 0;
  }
  std::string kind_;
};

}  // namespace

std::unique_ptr<Family> make_rmsnorm(const std::string& dtype) {
  return std::make_unique<Norm>(row_elem(dtype), false);
}
std::unique_ptr<Family> make_layernorm(const std::string& dtype) {
  return std::make_unique<Norm>(row_elem(dtype), true);
}
std::unique_ptr<Family> make_rope(const std::string& kind, const std::string& dtype) {
  if (dtype != "bf16") throw std::runtime_error(kind + ": bf16 only");
  return std::make_unique<Rope>(kind);
}

}  // namespace candle_ab
