// What the families share (shapes, element types) and the table of families.
#include "families.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "families_impl.h"
#include "host_data.h"

namespace candle_ab {

long long Shape::at(const std::string& key) const {
  auto it = v.find(key);
  if (it == v.end()) throw std::runtime_error("shape " + name + " has no '" + key + "'");
  return it->second;
}

const Input& Problem::in(const std::string& name) const {
  for (const Input& i : inputs)
    if (i.name == name) return i;
  throw std::runtime_error("no input '" + name + "'");
}

size_t elem_bytes(Elem e) {
  switch (e) {
    case Elem::kF32:
    case Elem::kU32:
      return 4;
    case Elem::kBF16:
      return 2;
    case Elem::kU8:
      return 1;
  }
  return 0;
}

double elem_value(Elem e, const uint8_t* base, size_t i) {
  switch (e) {
    case Elem::kF32: {
      float f;
      std::memcpy(&f, base + 4 * i, 4);
      return f;
    }
    case Elem::kBF16: {
      uint16_t b;
      std::memcpy(&b, base + 2 * i, 2);
      return bf16_to_float(b);
    }
    case Elem::kU32: {
      uint32_t u;
      std::memcpy(&u, base + 4 * i, 4);
      return u;
    }
    case Elem::kU8:
      return base[i];
  }
  return 0;
}

std::vector<size_t> sample_indices(size_t n, size_t max) {
  std::vector<size_t> out;
  if (n <= max) {
    for (size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  // The last elements (where a kernel's bounds go wrong) are always checked, in at most half
  // of max: with max below 2048 a fixed tail of 1024 left no room for a step (max - tail
  // wrapped, the step was 0 and the loop never ended).
  const size_t tail = std::min<size_t>(1024, max / 2);
  const size_t step = std::max<size_t>(1, (n - tail) / (max - tail));
  for (size_t i = 0; i < n - tail; i += step) out.push_back(i);
  for (size_t i = n - tail; i < n; ++i) out.push_back(i);
  return out;
}

Param ptr(CUdeviceptr p) {
  return {uint64_t(p), 8};
}
Param u64(uint64_t v) {
  return {v, 8};
}
Param u32(uint32_t v) {
  return {v, 4};
}
Param i32(int32_t v) {
  Param p{0, 4};
  std::memcpy(&p.slot, &v, 4);
  return p;
}
Param f32(float v) {
  Param p{0, 4};
  std::memcpy(&p.slot, &v, 4);
  return p;
}
Param u8(uint8_t v) {
  return {v, 1};
}

namespace {
bool fill_inputs = true;
}  // namespace

void set_fill_inputs(bool fill) {
  fill_inputs = fill;
}

Input random_input(const std::string& name, Elem e, size_t count, uint64_t seed, Draw draw) {
  Input in{name, std::vector<uint8_t>(count * elem_bytes(e)), 0};
  if (!fill_inputs) return in;
  uint8_t* bytes = in.host.data();
  parallel_for(count, [&](size_t i) {
    double x = draw.kind == Draw::kNormal ? normal(seed, i)
                                          : draw.low + (draw.high - draw.low) * uniform01(seed, i);
    if (draw.apply) x = draw.apply(x);
    switch (e) {
      case Elem::kF32: {
        float f = float(x);
        std::memcpy(bytes + 4 * i, &f, 4);
        break;
      }
      case Elem::kBF16: {
        uint16_t b = float_to_bf16(float(x));
        std::memcpy(bytes + 2 * i, &b, 2);
        break;
      }
      case Elem::kU32: {
        uint32_t u = uint32_t(x);
        std::memcpy(bytes + 4 * i, &u, 4);
        break;
      }
      case Elem::kU8:
        bytes[i] = uint8_t(x);
        break;
    }
  });
  return in;
}

std::unique_ptr<Family> make_family(const std::string& family, const std::string& dtype) {
  std::unique_ptr<Family> f;
  if (family == "unary_silu") f = make_unary_silu(dtype);
  if (family == "affine") f = make_affine(dtype);
  if (family == "affine_f8") f = make_affine_f8(dtype);
  if (family == "where") f = make_where(dtype);
  if (family == "reduce") f = make_reduce(dtype);
  if (family == "rmsnorm") f = make_rmsnorm(dtype);
  if (family == "layernorm") f = make_layernorm(dtype);
  if (family == "rope_i" || family == "rope" || family == "rope_thd") f = make_rope(family, dtype);
  if (!f) throw std::runtime_error("unknown family " + family + "/" + dtype);
  return f;
}

}  // namespace candle_ab
