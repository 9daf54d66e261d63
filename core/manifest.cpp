#include "core/manifest.h"

namespace kgate {

Variables Implementation::default_tunables() const {
  Variables out;
  for (const Tunable& tunable : tunables) out[tunable.name] = tunable.values.front();
  return out;
}

const Implementation* Kernel::implementation(std::string_view backend) const {
  for (const Implementation& impl : implementations)
    if (impl.backend == backend) return &impl;
  return nullptr;
}

const Shape* Kernel::shape(std::string_view name) const {
  for (const Shape& s : shapes)
    if (s.name == name) return &s;
  return nullptr;
}

Variables Kernel::variables(const Shape& s, const Variables& tunables) const {
  Variables out = s.variables;
  for (const auto& [name, value] : tunables) out[name] = value;
  return out;
}

bool Shape::runs_on(std::string_view backend) const {
  if (backends.empty()) return true;
  for (const std::string& b : backends)
    if (b == backend) return true;
  return false;
}

const Kernel* Manifest::kernel(std::string_view name) const {
  for (const Kernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace kgate
