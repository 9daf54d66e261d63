#include "runner/inputs.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/dtype_convert.h"
#include "core/parallel.h"
#include "runner/input_formula.h"

namespace kgate {
namespace {

// Elements per chunk handed to a thread: large enough that starting threads
// costs little beside the work, small buffers stay on the calling thread.
constexpr int64_t kGrain = int64_t{1} << 18;
// Elements computed in double, then stored together (store_range_from_double).
constexpr int64_t kBlock = 512;

}  // namespace

input_formula::DrawSpec draw_spec(const ArgPlan& plan, uint64_t seed, size_t position) {
  const Arg& arg = *plan.arg;
  input_formula::DrawSpec s;
  s.key = input_formula::buffer_key(seed, position);
  s.count = plan.count;
  s.dtype = static_cast<int32_t>(arg.dtype);
  s.is_float = dtype_is_float(arg.dtype) ? 1 : 0;
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
  }
  return s;
}

Bytes make_input(const ArgPlan& plan, uint64_t seed, size_t position, int threads) {
  return draw_bytes(draw_spec(plan, seed, position), plan.bytes, threads);
}

Bytes draw_bytes(const input_formula::DrawSpec& spec, size_t bytes, int threads) {
  const DType dtype = static_cast<DType>(spec.dtype);
  Bytes data(bytes);
  unsigned char* out = data.data();
  if (spec.distribution == 2 && dtype == DType::kInt64) {  // beyond 2^53 a double would round it
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
    if (a.arg->is_buffer && a.arg->role != ArgRole::kOutput)
      data[i] = make_input(a, seed, i, threads);
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
