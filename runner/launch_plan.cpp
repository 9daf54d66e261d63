#include "runner/launch_plan.h"

#include <cstring>
#include <limits>

namespace kgate {

size_t LaunchPlan::total_bytes() const {
  size_t total = 0;
  for (const ArgPlan& a : args) total += a.bytes;
  return total;
}

size_t LaunchPlan::traffic_bytes() const {
  size_t total = 0;
  for (const ArgPlan& a : args)
    if (a.arg && a.arg->is_buffer) total += a.arg->role == ArgRole::kInOut ? 2 * a.bytes : a.bytes;
  return total;
}

Result<LaunchPlan> plan_launch(const Kernel& kernel, const Implementation* impl, const Shape& shape,
                               const Variables& tunables) {
  LaunchPlan plan;
  Variables full_tunables = impl ? impl->default_tunables() : Variables{};
  for (const auto& [k, v] : tunables) full_tunables[k] = v;
  plan.variables = kernel.variables(shape, full_tunables);
  const Variables& vars = plan.variables;
  auto where = [&](const std::string& path) {
    return kernel.name + " (" + path + ", shape '" + shape.name + "')";
  };
  for (const Arg& arg : kernel.args) {
    ArgPlan a;
    a.arg = &arg;
    if (arg.is_buffer) {
      auto count = arg.count.evaluate(vars);
      if (!count.ok()) return count.error().with_context(where(arg.json_path + ".count"));
      if (*count < (shape.allow_empty ? 0 : 1))
        return Error::bad_input(where(arg.json_path + ".count") + ": count is " +
                                std::to_string(*count) + ", expected at least 1" +
                                (*count == 0 ? " (or \"allow_empty\": true on the shape)" : ""));
      a.count = *count;
      if (__builtin_mul_overflow(static_cast<size_t>(*count), dtype_size(arg.dtype), &a.bytes))
        return Error::bad_input(where(arg.json_path + ".count") + ": buffer size overflows");
      if (arg.init.distribution == InitSpec::Distribution::kRandInt) {
        auto low = arg.init.int_low.evaluate(vars);
        auto high = arg.init.int_high.evaluate(vars);
        if (!low.ok()) return low.error().with_context(where(arg.json_path + ".init.low"));
        if (!high.ok()) return high.error().with_context(where(arg.json_path + ".init.high"));
        if (*low >= *high)
          return Error::bad_input(where(arg.json_path + ".init") + ": randint needs low < high");
        a.randint_low = *low;
        a.randint_high = *high;
      }
    } else {
      a.scalar.size = dtype_size(arg.dtype);
      if (dtype_is_float(arg.dtype)) {
        double value = arg.float_value;
        if (!arg.float_variable.empty()) {
          auto per_shape = shape.number(arg.float_variable);
          if (!per_shape)
            return Error::bad_input(where(arg.json_path + ".value") +
                                    ": the shape has no variable '" + arg.float_variable + "'");
          value = *per_shape;
        }
        store_from_double(arg.dtype, a.scalar.bytes, 0, value);
      } else {
        auto value = arg.int_value.evaluate(vars);
        if (!value.ok()) return value.error().with_context(where(arg.json_path + ".value"));
        int64_t v = *value;
        bool fits = true;
        switch (arg.dtype) {
          case DType::kInt32:
            fits = v >= INT32_MIN && v <= INT32_MAX;
            break;
          case DType::kUInt8:
            fits = v >= 0 && v <= 255;
            break;
          default:
            break;
        }
        if (!fits)
          return Error::bad_input(where(arg.json_path + ".value") + ": value " + std::to_string(v) +
                                  " does not fit in " + std::string(dtype_name(arg.dtype)));
        store_from_double(arg.dtype, a.scalar.bytes, 0, static_cast<double>(v));
        if (arg.dtype == DType::kInt64) std::memcpy(a.scalar.bytes, &v, 8);  // exact beyond 2^53
      }
    }
    plan.args.push_back(a);
  }
  if (impl && !impl->launch.grid.empty()) {
    // A grid of 0 blocks is an empty launch (LaunchDims::empty) on shapes
    // that allow it; a block of 0 threads never is.
    auto dim = [&](const Expression& e, const std::string& path, uint32_t& out,
                   int64_t least) -> Status {
      auto value = e.evaluate(vars);
      if (!value.ok()) return value.error().with_context(where(path));
      if (*value < least || *value > std::numeric_limits<uint32_t>::max())
        return Error::bad_input(where(path) + ": launch dimension " + std::to_string(*value) +
                                " is out of range");
      out = static_cast<uint32_t>(*value);
      return {};
    };
    for (size_t i = 0; i < impl->launch.grid.size(); ++i)
      KGATE_RETURN_IF_ERROR(dim(impl->launch.grid[i],
                                impl->json_path + ".launch.grid[" + std::to_string(i) + "]",
                                plan.dims.grid[i], shape.allow_empty ? 0 : 1));
    for (size_t i = 0; i < impl->launch.block.size(); ++i)
      KGATE_RETURN_IF_ERROR(dim(impl->launch.block[i],
                                impl->json_path + ".launch.block[" + std::to_string(i) + "]",
                                plan.dims.block[i], 1));
    auto shared = impl->launch.shared_bytes.evaluate(vars);
    if (!shared.ok())
      return shared.error().with_context(where(impl->json_path + ".launch.shared_bytes"));
    if (*shared < 0 || *shared > (1 << 30))
      return Error::bad_input(where(impl->json_path + ".launch.shared_bytes") + ": out of range");
    plan.dims.shared_bytes = static_cast<uint32_t>(*shared);
  }
  return plan;
}

}  // namespace kgate
