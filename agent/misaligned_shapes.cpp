#include "agent/misaligned_shapes.h"

#include <algorithm>
#include <random>

#include "runner/launch_plan.h"

namespace kgate {
namespace {

// How a derived shape breaks alignment; one style per shape, so the first
// is odd in every dimension and the others differ from it.
enum class Style { kOdd, kBlockOff, kNotFour };

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  if (hi <= lo) return lo;
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

// A misaligned value near or below `x` (> 1), at most x + 1.
int64_t misaligned_value(int64_t x, Style style, std::mt19937_64& rng) {
  const int64_t hi = std::min<int64_t>(x + 1, 4097);
  switch (style) {
    case Style::kBlockOff: {
      // One off a multiple of a block size: 32k +- 1 ... 256k +- 1.
      std::vector<int64_t> blocks;
      for (int64_t b : {32, 64, 128, 256})
        if (b <= x) blocks.push_back(b);
      if (blocks.empty()) break;
      const int64_t b = blocks[pick(rng, 0, static_cast<int64_t>(blocks.size()) - 1)];
      const int64_t k = pick(rng, 1, std::max<int64_t>(1, std::min<int64_t>(x / b, 8)));
      const int64_t v = k * b + (pick(rng, 0, 1) ? 1 : -1);
      return v + 1 <= hi ? v : k * b - 1;
    }
    case Style::kNotFour: {
      const int64_t v = 4 * pick(rng, 0, std::min<int64_t>(hi, 256) / 4) + pick(rng, 1, 3);
      if (v <= hi) return v;
      break;
    }
    case Style::kOdd:
      break;
  }
  // Odd, at least 3 where x allows it.
  const int64_t top = std::min<int64_t>(hi, 97);
  if (top < 3) return 1;
  return 2 * pick(rng, 1, (top - 1) / 2) + 1;
}

std::string shape_name(const Shape& s) {
  std::string name = "misaligned";
  bool first = true;
  for (const auto& [k, v] : s.variables) {
    name += (first ? "-" : "x") + std::to_string(v);
    first = false;
  }
  return name;
}

}  // namespace

std::string shape_variables_text(const Shape& shape) {
  std::string s;
  for (const auto& [k, v] : shape.variables)
    s += (s.empty() ? "" : ", ") + k + "=" + std::to_string(v);
  for (const auto& [k, v] : shape.float_variables)
    s += (s.empty() ? "" : ", ") + k + "=" + nlohmann::json(v).dump();
  return s;
}

MisalignedShapes derive_misaligned_shapes(const Kernel& kernel, const Implementation& impl,
                                          uint64_t seed, int count, size_t max_bytes) {
  MisalignedShapes out;
  out.seed = seed;
  // Bases: declared shapes with a size to misalign, smallest first.
  std::vector<std::pair<size_t, const Shape*>> bases;
  for (const Shape& s : kernel.shapes) {
    if (!s.runs_on(impl.backend)) continue;
    if (std::none_of(s.variables.begin(), s.variables.end(),
                     [](const auto& kv) { return kv.second > 1; }))
      continue;
    auto plan = plan_launch(kernel, &impl, s, {});
    if (plan.ok()) bases.push_back({plan->total_bytes(), &s});
  }
  std::stable_sort(bases.begin(), bases.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  if (bases.empty()) return out;

  const Style styles[] = {Style::kOdd, Style::kBlockOff, Style::kNotFour};
  for (int i = 0; i < count; ++i) {
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(i) * 7919 + 1);
    const Shape& base = *bases[static_cast<size_t>(i) % bases.size()].second;
    const Style style = styles[i % 3];
    Shape d;
    d.phase = "misaligned";
    d.backends = {impl.backend};
    d.json_path = "derived from " + base.json_path;
    for (const auto& [k, x] : base.variables)
      d.variables[k] = x > 1 ? misaligned_value(x, style, rng) : x;
    d.float_variables = base.float_variables;  // per-shape float scalars follow the base
    // Small enough to check cheaply: halve the largest size (kept odd).
    for (int guard = 0; guard < 64; ++guard) {
      auto plan = plan_launch(kernel, &impl, d, {});
      if (!plan.ok() || plan->total_bytes() <= max_bytes) break;
      auto largest =
          std::max_element(d.variables.begin(), d.variables.end(),
                           [](const auto& a, const auto& b) { return a.second < b.second; });
      if (largest->second <= 3) break;
      largest->second = std::max<int64_t>(3, largest->second / 2) | 1;
    }
    d.name = shape_name(d);
    const bool seen = std::any_of(out.shapes.begin(), out.shapes.end(),
                                  [&](const Shape& s) { return s.variables == d.variables; }) ||
                      std::any_of(kernel.shapes.begin(), kernel.shapes.end(),
                                  [&](const Shape& s) { return s.variables == d.variables; });
    if (seen) continue;
    auto plan = plan_launch(kernel, &impl, d, {});
    if (!plan.ok()) {
      out.skipped.push_back(d.name + " (" + shape_variables_text(d) + "): " + plan.error().message);
      continue;
    }
    if (plan->total_bytes() > max_bytes) {
      out.skipped.push_back(d.name + " (" + shape_variables_text(d) +
                            "): " + std::to_string(plan->total_bytes()) + " bytes, over the " +
                            std::to_string(max_bytes) + " a correctness shape may take");
      continue;
    }
    out.shapes.push_back(std::move(d));
  }
  return out;
}

}  // namespace kgate
