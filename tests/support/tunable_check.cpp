#include "support/tunable_check.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runner/isolated_measure.h"
#include "runner/reference.h"

namespace kgate::testing {

std::string combination_text(const Variables& combination) {
  std::string s;
  for (const auto& [n, x] : combination) s += (s.empty() ? "" : " ") + n + "=" + std::to_string(x);
  return s;
}

std::vector<const Shape*> correctness_shapes(const Kernel& kernel,
                                             const std::string& backend_name) {
  std::vector<const Shape*> out;
  const Shape* decode = nullptr;
  auto size = [](const Shape& s) {
    double p = 1;
    for (const auto& [n, v] : s.variables) p *= static_cast<double>(std::max<int64_t>(v, 1));
    return p;
  };
  for (const Shape& s : kernel.shapes) {
    if (!s.runs_on(backend_name)) continue;
    if (s.phase == "edge") out.push_back(&s);
    if (s.phase == "decode" && (!decode || size(s) < size(*decode))) decode = &s;
  }
  if (decode) out.push_back(decode);
  return out;
}

void check_tunable_combinations(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                                const std::string& backend_name,
                                const std::vector<Variables>& combinations,
                                const std::vector<const Shape*>& shapes, TunableCheckCount* count) {
  const Implementation* impl = kernel.implementation(backend_name);
  ASSERT_NE(impl, nullptr) << kernel.name << " has no " << backend_name << " implementation";
  auto reference = build_reference(kernel, manifest.root);
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  ASSERT_TRUE(reference->ok) << reference->digest();
  for (size_t c = 0; c < combinations.size(); ++c) {
    CompileRequest request;
    request.kernel = &kernel;
    request.impl = impl;
    request.root = manifest.root;
    request.tunables = combinations[c];
    auto compiled = backend.compile(request);
    ASSERT_TRUE(compiled.ok()) << compiled.error().message;
    ASSERT_TRUE(compiled->ok) << kernel.name << " " << combination_text(combinations[c]) << ":\n"
                              << compiled->digest();
    for (const Shape* shape : shapes) {
      MeasureRequest m;
      m.kernel = &kernel;
      m.impl = impl;
      m.shape = shape;
      m.backend = &backend;
      m.head = &compiled->program;
      m.reference = &reference->program;
      m.seed = 20261130 + c * 101;
      m.time = false;  // correctness only
      m.time_limit_s = kernel.timing.time_limit_s;
      ShapeMeasurement r = measure_shape(m);
      ++count->checks;
      EXPECT_EQ(r.status, MeasureStatus::kPass)
          << kernel.name << " " << combination_text(combinations[c]) << " on " << shape->name
          << ": " << r.reason;
      if (r.status != MeasureStatus::kPass) ++count->failed;
    }
  }
}

}  // namespace kgate::testing
