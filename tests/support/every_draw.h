#pragma once
// A launch plan with one buffer for every dtype and input distribution, for
// the tests of where inputs are drawn (host, host device, GPU).
#include <deque>
#include <string>

#include "runner/launch_plan.h"

namespace kgate {

// A plan with one buffer per dtype and distribution, each of `count`
// elements: what the draw tests cover.
struct EveryDraw {
  std::deque<Arg> args;
  LaunchPlan plan;

  explicit EveryDraw(int64_t count) {
    const DType types[] = {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                           DType::kInt64,   DType::kInt32,   DType::kUInt8};
    const InitSpec::Distribution kinds[] = {InitSpec::Distribution::kNormal,
                                            InitSpec::Distribution::kUniform,
                                            InitSpec::Distribution::kRandInt};
    for (DType t : types)
      for (InitSpec::Distribution d : kinds) {
        Arg& a = args.emplace_back();
        a.name = std::string(dtype_name(t)) + "_" + std::to_string(static_cast<int>(d));
        a.dtype = t;
        a.is_buffer = true;
        a.role = args.size() % 2 ? ArgRole::kInput : ArgRole::kInOut;
        a.init.distribution = d;
        a.init.mean = 0.5;
        a.init.stddev = 2;
        a.init.low = 0.5;  // integer buffers truncate: a range wider than 1
        a.init.high = 90;
        ArgPlan p{&a, count, size_t(count) * dtype_size(t)};
        p.randint_low = t == DType::kUInt8 ? 0 : -7;
        p.randint_high = t == DType::kUInt8 ? 200 : 1000;
        plan.args.push_back(p);
      }
  }
};

}  // namespace kgate
