#include "core/manifest.h"

namespace kgate {

Variables Implementation::default_tunables() const {
  Variables out;
  for (const Tunable& tunable : tunables) out[tunable.name] = tunable.values.front();
  return out;
}

Status Implementation::check_constraints(const Variables& tunables) const {
  Variables all = default_tunables();
  for (const auto& [name, value] : tunables) all[name] = value;
  for (const TunableConstraint& c : constraints) {
    auto holds = c.expression.evaluate(all);
    if (!holds.ok()) return Error::bad_input(holds.error().message + " (" + c.json_path + ")");
    if (*holds == 0) {
      std::string settings;
      for (const auto& [name, value] : all)
        if (c.expression.names().count(name))
          settings += (settings.empty() ? "" : " ") + name + "=" + std::to_string(value);
      return Error::bad_input(settings + " violates the constraint \"" + c.expression.text() +
                              "\" (" + c.json_path + ")");
    }
  }
  return {};
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

Result<Variables> Kernel::variables(const Shape& s, const Variables& tunables) const {
  Variables out = s.variables;
  for (const auto& [name, value] : tunables) out[name] = value;
  for (const LetValue& let : lets) {
    auto value = let.expression.evaluate(out);
    if (!value.ok())
      return Error::bad_input(let.json_path + ": " + value.error().message + " (shape '" + s.name +
                              "')");
    out[let.name] = *value;
  }
  return out;
}

namespace {

void collect_leaves(const Arg& arg, std::vector<const Arg*>& out) {
  if (!arg.is_struct) {
    out.push_back(&arg);
    return;
  }
  for (const Arg& field : arg.fields) collect_leaves(field, out);
}

}  // namespace

std::vector<const Arg*> Kernel::leaves() const {
  std::vector<const Arg*> out;
  for (const Arg& arg : args) collect_leaves(arg, out);
  return out;
}

std::optional<double> Shape::number(const std::string& name) const {
  if (auto f = float_variables.find(name); f != float_variables.end()) return f->second;
  if (auto i = variables.find(name); i != variables.end()) return static_cast<double>(i->second);
  return std::nullopt;
}

bool Shape::runs_on(std::string_view backend) const {
  if (backends.empty()) return true;
  for (const std::string& b : backends)
    if (b == backend) return true;
  return false;
}

std::string_view to_string(ShapeTiming timing) {
  switch (timing) {
    case ShapeTiming::kGate:
      return "gate";
    case ShapeTiming::kReport:
      return "report";
    case ShapeTiming::kOff:
      return "off";
  }
  return "gate";
}

std::optional<ShapeTiming> shape_timing_from_string(std::string_view text) {
  for (ShapeTiming t : {ShapeTiming::kGate, ShapeTiming::kReport, ShapeTiming::kOff})
    if (to_string(t) == text) return t;
  return std::nullopt;
}

std::string_view to_string(GatePolicy::Oracle oracle) {
  return oracle == GatePolicy::Oracle::kBase ? "base" : "reference";
}

ShapeTiming GatePolicy::timing_of(const Shape& shape) const {
  if (shape.timing) return *shape.timing;
  auto it = timing_by_phase.find(shape.phase);
  return it == timing_by_phase.end() ? ShapeTiming::kGate : it->second;
}

const Kernel* Manifest::kernel(std::string_view name) const {
  for (const Kernel& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace kgate
