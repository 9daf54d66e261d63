#pragma once
// A launch plan with one buffer for every dtype and input distribution, for
// the tests of where inputs are drawn (host, host device, GPU).
#include <algorithm>
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
                           DType::kInt64,   DType::kInt32,   DType::kUInt8,   DType::kInt8,
                           DType::kInt16,   DType::kUInt16,  DType::kUInt32,  DType::kUInt64,
                           DType::kBool,    DType::kFp8E4M3, DType::kFp8E5M2};
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
        p.randint_low = std::max<int64_t>(-7, dtype_min(t));
        p.randint_high = dtype_is_float(t) ? 1000 : std::min<int64_t>(1000, dtype_max(t) + 1);
        plan.args.push_back(p);
      }
    // cos and sin of one shared angle (drawn on a GPU too), and contents
    // made on the host wherever the set is drawn: a formula, sorted indices.
    for (InitSpec::Apply apply : {InitSpec::Apply::kCos, InitSpec::Apply::kSin}) {
      Arg& a = args.emplace_back();
      a.name = apply == InitSpec::Apply::kCos ? "cos" : "sin";
      a.dtype = DType::kFloat32;
      a.is_buffer = true;
      a.init.distribution = InitSpec::Distribution::kUniform;
      a.init.low = -3;
      a.init.high = 3;
      a.init.share = "angle";
      a.init.apply = apply;
      plan.args.push_back(ArgPlan{&a, count, size_t(count) * 4});
    }
    Arg& formula = args.emplace_back();
    formula.name = "formula";
    formula.dtype = DType::kInt32;
    formula.is_buffer = true;
    formula.init.distribution = InitSpec::Distribution::kFormula;
    formula.init.formula = *Expression::parse("(i * 7) % 1000");
    plan.args.push_back(ArgPlan{&formula, count, size_t(count) * 4});
    Arg& sorted = args.emplace_back();
    sorted.name = "sorted";
    sorted.dtype = DType::kUInt32;
    sorted.is_buffer = true;
    sorted.init.distribution = InitSpec::Distribution::kRandInt;
    sorted.init.sorted = true;
    ArgPlan s{&sorted, count, size_t(count) * 4};
    s.randint_low = 0;
    s.randint_high = 1 << 30;
    plan.args.push_back(s);
  }
};

}  // namespace kgate
