#include "agent/misaligned_check.h"

#include "core/log.h"
#include "runner/isolated_measure.h"
#include "runner/launch_plan.h"
#include "runner/reference.h"

namespace kgate {

MisalignedCheck::MisalignedCheck(const Manifest& manifest, const Kernel& kernel, Backend& backend,
                                 uint64_t seed, int count, double time_limit_s)
    : manifest_(manifest),
      kernel_(kernel),
      backend_(backend),
      impl_(kernel.implementation(backend.name())),
      time_limit_s_(time_limit_s) {
  if (impl_ && count > 0) derived_ = derive_misaligned_shapes(kernel, *impl_, seed, count);
  derived_.seed = seed;
}

Status MisalignedCheck::ensure_reference() {
  if (reference_) return {};
  auto ref = build_reference(kernel_, manifest_.root);
  if (!ref.ok()) return ref.error();
  if (!ref->ok)
    return Error::bad_input("the reference of " + kernel_.name + " does not compile:\n" +
                            ref->digest());
  reference_ = ref->program;
  return {};
}

ShapeMeasurement MisalignedCheck::run(const Shape& shape, const Program& program, size_t index,
                                      const Kernel* side) {
  MeasureRequest m;
  m.kernel = side ? side : &kernel_;
  m.impl = side ? side->implementation(backend_.name()) : impl_;
  m.shape = &shape;
  m.backend = &backend_;
  m.head = &program;
  m.reference = &*reference_;
  // The same inputs for every candidate on a shape: their references are computed once.
  m.seed = derived_.seed * 1000003 + 7777 + index * 101;
  m.reference_cache = &references_;
  m.time = false;
  m.time_limit_s = time_limit_s_;
  return measure_shape(m);
}

Status MisalignedCheck::establish(const Program& trusted) {
  if (established_) return {};
  established_ = true;
  for (const std::string& s : derived_.skipped) entries_.push_back({Shape{}, "skipped: " + s});
  if (derived_.shapes.empty()) return {};
  std::string names;
  for (const Shape& s : derived_.shapes)
    names += (names.empty() ? "" : ", ") + s.name + " (" + shape_variables_text(s) + ")";
  progress("misaligned shapes checked on every candidate (seed " + std::to_string(derived_.seed) +
           "): " + names);
  KGATE_RETURN_IF_ERROR(ensure_reference());
  for (size_t i = 0; i < derived_.shapes.size(); ++i) {
    const Shape& shape = derived_.shapes[i];
    ShapeMeasurement r = run(shape, trusted, i);
    std::string status = "checked";
    if (r.status != MeasureStatus::kPass)
      status = "skipped: the original fails it too (" + r.reason + ")";
    entries_.push_back({shape, status});
  }
  return {};
}

Result<std::optional<MisalignedFailure>> MisalignedCheck::check(const Program& candidate,
                                                                const Variables& tunables,
                                                                const Kernel* side) {
  const Kernel& kernel = side ? *side : kernel_;
  const Implementation* impl = side ? side->implementation(backend_.name()) : impl_;
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.status != "checked") continue;
    // Tunables the manifest allows may not fit a derived shape (a launch
    // expression out of range): that shape says nothing about this candidate.
    if (!plan_launch(kernel, impl, e.shape, tunables).ok()) continue;
    size_t index = 0;
    while (index < derived_.shapes.size() && derived_.shapes[index].name != e.shape.name) ++index;
    ShapeMeasurement r = run(e.shape, candidate, index, side);
    if (r.status == MeasureStatus::kFail)
      return std::optional<MisalignedFailure>(MisalignedFailure{
          e.shape.name, "wrong on " + e.shape.name + " (" + shape_variables_text(e.shape) +
                            "; a misaligned shape drawn with seed " +
                            std::to_string(derived_.seed) + "): " + r.reason});
    if (r.status == MeasureStatus::kError)
      warn("the misaligned shape " + e.shape.name + " could not be run: " + r.reason);
  }
  return std::optional<MisalignedFailure>();
}

nlohmann::json MisalignedCheck::to_json() const {
  nlohmann::json shapes = nlohmann::json::array();
  for (const Entry& e : entries_) {
    nlohmann::json vars = nlohmann::json::object();
    for (const auto& [k, v] : e.shape.variables) vars[k] = v;
    for (const auto& [k, v] : e.shape.float_variables) vars[k] = v;
    shapes.push_back({{"name", e.shape.name}, {"variables", vars}, {"status", e.status}});
  }
  if (!established_)
    for (const Shape& s : derived_.shapes) {
      nlohmann::json vars = nlohmann::json::object();
      for (const auto& [k, v] : s.variables) vars[k] = v;
      for (const auto& [k, v] : s.float_variables) vars[k] = v;
      shapes.push_back({{"name", s.name}, {"variables", vars}, {"status", "not yet checked"}});
    }
  return {{"seed", derived_.seed}, {"shapes", shapes}};
}

}  // namespace kgate
