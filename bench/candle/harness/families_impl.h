// Between families.cpp and the files that implement the families.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "families.h"

namespace candle_ab {

struct Draw {
  enum Kind { kNormal, kUniform } kind = kNormal;
  double low = 0, high = 1;             // kUniform: [low, high), integers truncated
  std::function<double(double)> apply;  // a function of the drawn value (cos, sin)
};

inline Draw uniform_draw(double low, double high) {
  Draw d;
  d.kind = Draw::kUniform;
  d.low = low;
  d.high = high;
  return d;
}

Input random_input(const std::string& name, Elem e, size_t count, uint64_t seed, Draw draw = {});
// All of 0..n-1 when n <= max, else about max of them spread evenly and the last 1024.
std::vector<size_t> sample_indices(size_t n, size_t max);

std::unique_ptr<Family> make_unary_silu(const std::string& dtype);
std::unique_ptr<Family> make_affine(const std::string& dtype);
std::unique_ptr<Family> make_affine_f8(const std::string& dtype);
std::unique_ptr<Family> make_where(const std::string& dtype);
std::unique_ptr<Family> make_reduce(const std::string& op);
std::unique_ptr<Family> make_rmsnorm(const std::string& dtype);
std::unique_ptr<Family> make_layernorm(const std::string& dtype);
std::unique_ptr<Family> make_rope(const std::string& kind, const std::string& dtype);

}  // namespace candle_ab
