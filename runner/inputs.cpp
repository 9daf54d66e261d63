#include "runner/inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>
#include <optional>

#include "core/dtype_convert.h"
#include "core/log.h"
#include "core/parallel.h"
#include "runner/input_formula.h"

namespace kgate {
namespace {

// Elements per chunk handed to a thread: large enough that starting threads
// costs little beside the work, small buffers stay on the calling thread.
constexpr int64_t kGrain = int64_t{1} << 18;
// Elements computed in double, then stored together (store_range_from_double).
constexpr int64_t kBlock = 512;

// FNV-1a: a stable hash of a shared draw's name (the same in every process).
uint64_t name_hash(const std::string& name) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : name) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

bool exact_integers(DType dtype) {
  return dtype == DType::kInt64 || dtype == DType::kUInt64;
}

// A buffer's given contents: "values" as evaluated in the plan, or "formula"
// element by element (one copy of the variables per chunk, `i` updated in place).
Result<Bytes> given_bytes(const ArgPlan& plan, const Variables& variables, int threads) {
  const DType dtype = plan.arg->dtype;
  Bytes data(plan.bytes);
  unsigned char* out = data.data();
  if (plan.arg->init.distribution == InitSpec::Distribution::kValues) {
    store_range_from_double(dtype, plan.given.data(), plan.count, out, 0);
    return data;
  }
  const InitSpec& init = plan.arg->init;
  std::mutex failed_lock;
  std::optional<Error> failed;
  parallel_for(
      plan.count, kGrain,
      [&](int64_t begin, int64_t end) {
        Variables vars = variables;
        int64_t& index = vars["i"];
        double values[kBlock];
        for (int64_t block = begin; block < end; block += kBlock) {
          const int64_t n = std::min(kBlock, end - block);
          for (int64_t k = 0; k < n; ++k) {
            index = block + k;
            auto v = init.formula.evaluate(vars);
            if (!v.ok()) {
              std::lock_guard<std::mutex> lock(failed_lock);
              if (!failed)
                failed = v.error().with_context(plan.arg->json_path +
                                                ".init.formula, i = " + std::to_string(index));
              return;
            }
            if (exact_integers(dtype)) std::memcpy(out + (block + k) * 8, &*v, 8);
            values[k] = static_cast<double>(*v) * init.scale;
          }
          if (!exact_integers(dtype)) store_range_from_double(dtype, values, n, out, block);
        }
      },
      threads);
  if (failed) return *failed;
  return data;
}

// A randint draw in ascending order (offsets, sorted indices).
Bytes sorted_bytes(const ArgPlan& plan, const input_formula::DrawSpec& spec) {
  std::vector<int64_t> values(plan.count);
  for (int64_t i = 0; i < plan.count; ++i) values[i] = input_formula::randint_value(spec, i);
  std::sort(values.begin(), values.end());
  Bytes data(plan.bytes);
  with_store(plan.arg->dtype, [&](auto store) {
    for (int64_t i = 0; i < plan.count; ++i) store(data.data(), i, static_cast<double>(values[i]));
  });
  if (exact_integers(plan.arg->dtype)) std::memcpy(data.data(), values.data(), plan.bytes);
  return data;
}

}  // namespace

input_formula::DrawSpec draw_spec(const ArgPlan& plan, uint64_t seed, size_t position) {
  const Arg& arg = *plan.arg;
  input_formula::DrawSpec s;
  s.key = arg.init.share.empty() ? input_formula::buffer_key(seed, position)
                                 : input_formula::shared_key(seed, name_hash(arg.init.share));
  s.count = plan.count;
  s.dtype = static_cast<int32_t>(arg.dtype);
  s.is_float = dtype_is_float(arg.dtype) ? 1 : 0;
  s.apply = static_cast<int32_t>(arg.init.apply);
  switch (arg.init.distribution) {
    case InitSpec::Distribution::kNormal:
      s.distribution = 0;
      s.a = arg.init.mean;
      s.b = arg.init.stddev;
      break;
    case InitSpec::Distribution::kUniform:
      s.distribution = 1;
      s.a = arg.init.low;
      s.b = arg.init.high - arg.init.low;
      break;
    case InitSpec::Distribution::kRandInt:
      s.distribution = 2;
      s.randint_low = plan.randint_low;
      s.randint_range = static_cast<uint64_t>(plan.randint_high - plan.randint_low);
      break;
    case InitSpec::Distribution::kValues:
    case InitSpec::Distribution::kFormula:
      break;  // made on the host (given_bytes)
  }
  return s;
}

Bytes make_input(const ArgPlan& plan, uint64_t seed, size_t position, const Variables& variables,
                 int threads) {
  const InitSpec& init = plan.arg->init;
  if (init.distribution == InitSpec::Distribution::kValues ||
      init.distribution == InitSpec::Distribution::kFormula) {
    // The manifest loader evaluated the formula at both ends for every
    // shape; an element between them that fails is still reported.
    auto given = given_bytes(plan, variables, threads);
    if (given.ok()) return std::move(given.value());
    warn(given.error().message + " (the buffer is left poisoned: the check will fail)");
    Bytes poisoned(plan.bytes);
    std::fill(poisoned.begin(), poisoned.end(), kPoisonByte);
    return poisoned;
  }
  if (init.sorted) return sorted_bytes(plan, draw_spec(plan, seed, position));
  return draw_bytes(draw_spec(plan, seed, position), plan.bytes, threads);
}

Status put_input(Device& device, DeviceAddress address, const ArgPlan& leaf, uint64_t seed,
                 size_t position, const Variables& variables) {
  // FP8 buffers are rounded on the host (core/fp8.h), which the GPU's draw
  // would have to match bit for bit.
  const DType t = leaf.arg->dtype;
  if (leaf.arg->init.device_drawable() && t != DType::kFp8E4M3 && t != DType::kFp8E5M2)
    return device.draw(address, draw_spec(leaf, seed, position), leaf.bytes);
  Bytes host = make_input(leaf, seed, position, variables);
  return device.upload(address, host.data(), leaf.bytes);
}

Bytes draw_bytes(const input_formula::DrawSpec& spec, size_t bytes, int threads) {
  const DType dtype = static_cast<DType>(spec.dtype);
  Bytes data(bytes);
  unsigned char* out = data.data();
  if (spec.distribution == 2 && exact_integers(dtype)) {  // beyond 2^53 a double would round it
    parallel_for(
        spec.count, kGrain,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            int64_t v = input_formula::randint_value(spec, i);
            std::memcpy(out + i * 8, &v, 8);
          }
        },
        threads);
    return data;
  }
  parallel_for(
      spec.count, kGrain,
      [&](int64_t begin, int64_t end) {
        double values[kBlock];
        for (int64_t block = begin; block < end; block += kBlock) {
          const int64_t n = std::min(kBlock, end - block);
          for (int64_t k = 0; k < n; ++k) values[k] = input_formula::value(spec, block + k);
          store_range_from_double(dtype, values, n, out, block);
        }
      },
      threads);
  return data;
}

HostData make_inputs(const LaunchPlan& plan, uint64_t seed, int threads) {
  HostData data(plan.args.size());
  for (size_t i = 0; i < plan.args.size(); ++i) {
    const ArgPlan& a = plan.args[i];
    if (a.drawn()) data[i] = make_input(a, seed, i, plan.variables, threads);
  }
  return data;
}

bool is_poison(const unsigned char* data, size_t element_size, size_t index) {
  const unsigned char* p = data + index * element_size;
  for (size_t i = 0; i < element_size; ++i)
    if (p[i] != kPoisonByte) return false;
  return true;
}

}  // namespace kgate
