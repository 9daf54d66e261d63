#include "core/argument_plan.h"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace kgate {
namespace {

size_t round_up_to(size_t value, size_t align) {
  return (value + align - 1) / align * align;
}

size_t natural_align(const Arg& arg) {
  if (arg.is_struct) return struct_layout(arg).align;
  return arg.is_buffer ? 8 : dtype_size(arg.dtype);
}

// The kernel's tolerance with the fields an output gives replaced (the
// loader leaves the others negative).
Tolerance effective_tolerance(const Kernel& kernel, const Arg& arg) {
  Tolerance t = kernel.tolerance;
  if (!arg.tolerance) return t;
  if (arg.tolerance->atol >= 0) t.atol = arg.tolerance->atol;
  if (arg.tolerance->rtol >= 0) t.rtol = arg.tolerance->rtol;
  if (arg.tolerance->ulp >= 0) t.ulp = arg.tolerance->ulp;
  if (arg.tolerance->scale_rel >= 0) t.scale_rel = arg.tolerance->scale_rel;
  return t;
}

class Planner {
 public:
  Planner(const Kernel& kernel, const Shape& shape, const Variables& variables)
      : kernel_(kernel), shape_(shape), vars_(variables) {}

  Result<ArgumentPlan> plan() {
    for (const Arg& arg : kernel_.args) {
      if (arg.is_struct) {
        ParamPlan param;
        param.bytes.assign(struct_layout(arg).size, 0);
        KGATE_RETURN_IF_ERROR(plan_struct(arg, 0, param));
        out_.params.push_back(std::move(param));
        continue;
      }
      auto leaf = plan_leaf(arg);
      if (!leaf.ok()) return leaf.error();
      if (!arg.reference_only) out_.params.push_back(ParamPlan{*leaf, {}, {}});
    }
    return std::move(out_);
  }

 private:
  std::string where(const std::string& path) const {
    return kernel_.name + " (" + path + ", shape '" + shape_.name + "')";
  }
  Error bad(const std::string& path, const std::string& what) const {
    return Error::bad_input(where(path) + ": " + what);
  }
  Result<int64_t> evaluate(const Expression& e, const std::string& path) const {
    auto value = e.evaluate(vars_);
    if (!value.ok()) return value.error().with_context(where(path));
    return value;
  }

  // Writes the struct's scalar fields into `param.bytes` at `base` and notes
  // where its buffer fields go.
  Status plan_struct(const Arg& structure, size_t base, ParamPlan& param) {
    const StructLayout layout = struct_layout(structure);
    for (size_t f = 0; f < structure.fields.size(); ++f) {
      const Arg& field = structure.fields[f];
      const size_t at = base + layout.offsets[f];
      if (field.is_struct) {
        KGATE_RETURN_IF_ERROR(plan_struct(field, at, param));
        continue;
      }
      auto leaf = plan_leaf(field);
      if (!leaf.ok()) return leaf.error();
      const ArgPlan& planned = out_.args[*leaf];
      if (field.is_buffer)
        param.pointers.emplace_back(at, *leaf);
      else
        std::memcpy(param.bytes.data() + at, planned.scalar.bytes, planned.scalar.size);
    }
    return {};
  }

  Result<int> plan_leaf(const Arg& arg) {
    ArgPlan a;
    a.arg = &arg;
    a.tolerance = effective_tolerance(kernel_, arg);
    a.ulp_type = arg.dtype;
    if (arg.is_buffer)
      KGATE_RETURN_IF_ERROR(plan_buffer(arg, a));
    else
      KGATE_RETURN_IF_ERROR(plan_scalar(arg, a));
    out_.args.push_back(std::move(a));
    return static_cast<int>(out_.args.size()) - 1;
  }

  Status plan_buffer(const Arg& arg, ArgPlan& a) {
    if (arg.null_when) {
      auto null = evaluate(*arg.null_when, arg.json_path + ".null");
      if (!null.ok()) return null.error();
      if (*null != 0) {
        a.null = true;
        a.scalar.size = 8;  // a NULL pointer's bytes
        return {};
      }
    }
    auto count = evaluate(arg.count, arg.json_path + ".count");
    if (!count.ok()) return count.error();
    if (*count < (shape_.allow_empty ? 0 : 1))
      return bad(arg.json_path + ".count",
                 "evaluates to " + std::to_string(*count) + "; expected at least 1" +
                     (*count == 0 ? " (a kernel that handles an empty dimension may declare it: "
                                    "\"allow_empty\": true on the shape; a buffer passed as "
                                    "NULL: \"null\")"
                                  : ""));
    a.count = *count;
    if (__builtin_mul_overflow(static_cast<size_t>(*count), dtype_size(arg.dtype), &a.bytes))
      return bad(arg.json_path + ".count", "buffer size overflows");
    if (!a.drawn()) return {};
    const InitSpec& init = arg.init;
    const std::string path = arg.json_path + ".init";
    switch (init.distribution) {
      case InitSpec::Distribution::kRandInt: {
        auto low = evaluate(init.int_low, path + ".low");
        if (!low.ok()) return low.error();
        auto high = evaluate(init.int_high, path + ".high");
        if (!high.ok()) return high.error();
        if (*low >= *high)
          return bad(path, "randint needs low < high (inclusive low, exclusive high), got low " +
                               std::to_string(*low) + " and high " + std::to_string(*high));
        if (*low < dtype_min(arg.dtype) || *high - 1 > dtype_max(arg.dtype))
          return bad(path, "randint's range [" + std::to_string(*low) + ", " +
                               std::to_string(*high) + ") does not fit in " +
                               std::string(dtype_name(arg.dtype)));
        a.randint_low = *low;
        a.randint_high = *high;
        return {};
      }
      case InitSpec::Distribution::kValues: {
        if (static_cast<size_t>(a.count) != init.values.size())
          return bad(path + ".values", "gives " + std::to_string(init.values.size()) +
                                           " values for a buffer of " + std::to_string(a.count) +
                                           " elements (\"count\")");
        for (size_t i = 0; i < init.values.size(); ++i) {
          const GivenValue& v = init.values[i];
          double value = v.number;
          if (!v.is_number) {
            auto e = evaluate(v.expression, path + ".values[" + std::to_string(i) + "]");
            if (!e.ok()) return e.error();
            KGATE_RETURN_IF_ERROR(fits(arg, *e, path + ".values[" + std::to_string(i) + "]"));
            value = static_cast<double>(*e);
          }
          a.given.push_back(value);
        }
        return {};
      }
      case InitSpec::Distribution::kFormula: {
        // Every element is computed when the inputs are made; the first and
        // the last here, so a formula that fails (a division by zero, a
        // value out of the type's range) fails when the manifest loads.
        for (int64_t i : {int64_t{0}, a.count - 1}) {
          if (i < 0) continue;
          Variables with_index = vars_;
          with_index["i"] = i;
          auto e = init.formula.evaluate(with_index);
          if (!e.ok())
            return e.error().with_context(where(path + ".formula") + ", i = " + std::to_string(i));
          if (dtype_is_float(arg.dtype)) continue;
          KGATE_RETURN_IF_ERROR(fits(arg, *e, path + ".formula (i = " + std::to_string(i) + ")"));
        }
        return {};
      }
      default:
        return {};
    }
  }

  Status fits(const Arg& arg, int64_t v, const std::string& path) const {
    if (dtype_is_float(arg.dtype) || (v >= dtype_min(arg.dtype) && v <= dtype_max(arg.dtype)))
      return {};
    return bad(path, "value " + std::to_string(v) + " does not fit in " +
                         std::string(dtype_name(arg.dtype)));
  }

  Status plan_scalar(const Arg& arg, ArgPlan& a) {
    a.scalar.size = dtype_size(arg.dtype);
    if (dtype_is_float(arg.dtype)) {
      double value = arg.float_value;
      if (!arg.float_variable.empty()) {
        auto per_shape = shape_.number(arg.float_variable);
        if (!per_shape)
          return bad(arg.json_path + ".value",
                     "the shape has no variable '" + arg.float_variable +
                         "' (a float scalar naming a shape variable needs it in every shape)");
        value = *per_shape;
      }
      store_from_double(arg.dtype, a.scalar.bytes, 0, value);
      return {};
    }
    auto value = evaluate(arg.int_value, arg.json_path + ".value");
    if (!value.ok()) return value.error();
    KGATE_RETURN_IF_ERROR(fits(arg, *value, arg.json_path + ".value"));
    // The integer's own bytes: exact beyond 2^53, where a double would round.
    const int64_t v = *value;
    std::memcpy(a.scalar.bytes, &v, a.scalar.size);  // little-endian: the low bytes
    return {};
  }

  const Kernel& kernel_;
  const Shape& shape_;
  const Variables& vars_;
  ArgumentPlan out_;
};

}  // namespace

StructLayout struct_layout(const Arg& structure) {
  StructLayout layout;
  size_t offset = 0;
  for (const Arg& field : structure.fields) {
    const size_t align = natural_align(field);
    offset = round_up_to(offset, align);
    layout.offsets.push_back(offset);
    offset += param_size(field);
    layout.align = std::max(layout.align, align);
  }
  if (structure.align > 0)
    layout.align = std::max(layout.align, static_cast<size_t>(structure.align));
  layout.size = round_up_to(std::max<size_t>(offset, 1), layout.align);
  return layout;
}

size_t param_size(const Arg& arg) {
  if (arg.is_struct) return struct_layout(arg).size;
  return arg.is_buffer ? 8 : dtype_size(arg.dtype);
}

Result<ArgumentPlan> plan_arguments(const Kernel& kernel, const Shape& shape,
                                    const Variables& variables) {
  return Planner(kernel, shape, variables).plan();
}

ArgSlot leaf_slot(const ArgPlan& leaf, uint64_t address) {
  if (!leaf.buffer()) return leaf.scalar;
  ArgSlot slot;
  std::memcpy(slot.bytes, &address, 8);
  slot.size = 8;
  return slot;
}

std::vector<ArgSlot> param_slots(const ArgumentPlan& plan, const std::vector<uint64_t>& addresses) {
  std::vector<ArgSlot> slots;
  if (plan.params.empty()) {  // a plan made by hand: its leaves, in order
    for (size_t i = 0; i < plan.args.size(); ++i)
      slots.push_back(leaf_slot(plan.args[i], addresses[i]));
    return slots;
  }
  slots.reserve(plan.params.size());
  for (const ParamPlan& p : plan.params) {
    if (p.leaf >= 0) {
      slots.push_back(leaf_slot(plan.args[p.leaf], addresses[p.leaf]));
      continue;
    }
    ArgSlot slot;
    slot.large = p.bytes;
    slot.size = p.bytes.size();
    for (const auto& [offset, leaf] : p.pointers) {
      const uint64_t address = plan.args[leaf].buffer() ? addresses[leaf] : 0;
      std::memcpy(slot.large.data() + offset, &address, 8);
    }
    slots.push_back(std::move(slot));
  }
  return slots;
}

std::string describe_contents(const ArgPlan& a) {
  const Arg& arg = *a.arg;
  std::string m = std::string(dtype_name(arg.dtype)) + " role " +
                  std::to_string(static_cast<int>(arg.role)) + " count " + std::to_string(a.count);
  if (a.null) return m + " null";
  if (!a.drawn()) return m;
  const InitSpec& s = arg.init;
  char text[256];
  std::snprintf(text, sizeof text, " init %d %.17g %.17g %.17g %.17g %lld %lld sorted %d apply %d",
                static_cast<int>(s.distribution), s.mean, s.stddev, s.low, s.high,
                static_cast<long long>(a.randint_low), static_cast<long long>(a.randint_high),
                s.sorted ? 1 : 0, static_cast<int>(s.apply));
  m += text;
  if (!s.share.empty()) m += " share " + s.share;
  if (s.distribution == InitSpec::Distribution::kFormula) {
    std::snprintf(text, sizeof text, " scale %.17g", s.scale);
    m += " formula " + s.formula.text() + text;
  }
  for (double v : a.given) {
    std::snprintf(text, sizeof text, " %.17g", v);
    m += text;
  }
  return m;
}

Result<double> given_element(const ArgPlan& leaf, const Variables& variables, int64_t i) {
  const InitSpec& s = leaf.arg->init;
  if (s.distribution == InitSpec::Distribution::kValues) return leaf.given.at(i);
  Variables with_index = variables;
  with_index["i"] = i;
  auto value = s.formula.evaluate(with_index);
  if (!value.ok()) return value.error();
  return static_cast<double>(*value) * s.scale;
}

}  // namespace kgate
