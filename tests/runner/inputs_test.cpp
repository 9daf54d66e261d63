// Seeded inputs: the bytes depend on the seed and the argument's position
// only (never on the thread count), fresh seeds give fresh data, and every
// distribution has the moments and range the manifest asks for.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "core/dtype.h"
#include "core/parallel.h"
#include "runner/inputs.h"

namespace kgate {
namespace {

ArgPlan plan_for(const Arg& arg, int64_t count) {
  ArgPlan p;
  p.arg = &arg;
  p.count = count;
  p.bytes = static_cast<size_t>(count) * dtype_size(arg.dtype);
  return p;
}

Arg buffer(DType dtype, InitSpec init = {}) {
  Arg a;
  a.name = "x";
  a.dtype = dtype;
  a.is_buffer = true;
  a.init = init;
  return a;
}

// Large enough to be split over threads (the chunk grain is 2^18 elements).
constexpr int64_t kCount = 3 * (int64_t{1} << 18) + 7;

TEST(Inputs, BytesDoNotDependOnTheThreadCount) {
  InitSpec uniform;
  uniform.distribution = InitSpec::Distribution::kUniform;
  InitSpec randint;
  randint.distribution = InitSpec::Distribution::kRandInt;
  for (const Arg& arg : {buffer(DType::kFloat16), buffer(DType::kFloat32, uniform),
                         buffer(DType::kInt32, randint)}) {
    ArgPlan p = plan_for(arg, kCount);
    p.randint_low = -5;
    p.randint_high = 1000;
    auto one = make_input(p, 42, 1, {}, 1);
    for (int threads : {2, 3, 8}) EXPECT_EQ(make_input(p, 42, 1, {}, threads), one) << threads;
  }
}

TEST(Inputs, SeedAndPositionGiveDifferentData) {
  Arg arg = buffer(DType::kFloat32);
  ArgPlan p = plan_for(arg, 4096);
  auto a = make_input(p, 1, 0);
  EXPECT_EQ(make_input(p, 1, 0), a);
  EXPECT_NE(make_input(p, 2, 0), a);
  EXPECT_NE(make_input(p, 1, 1), a);
  // The seed must move every element, not a few.
  auto b = make_input(p, 2, 0);
  int same = 0;
  for (int64_t i = 0; i < p.count; ++i)
    same += load_as_double(DType::kFloat32, a.data(), i) ==
            load_as_double(DType::kFloat32, b.data(), i);
  EXPECT_LT(same, 5);
}

TEST(Inputs, NormalHasTheAskedMomentsAndIsNeverZeros) {
  InitSpec init;
  init.mean = 0.5;
  init.stddev = 4;
  Arg arg = buffer(DType::kFloat32, init);
  ArgPlan p = plan_for(arg, kCount);
  auto data = make_input(p, 7, 0);
  double sum = 0, sq = 0;
  int64_t zeros = 0, beyond3 = 0;
  for (int64_t i = 0; i < p.count; ++i) {
    double v = load_as_double(DType::kFloat32, data.data(), i);
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sq += v * v;
    zeros += v == 0;
    beyond3 += std::abs(v - 0.5) > 3 * 4;
  }
  double mean = sum / p.count, sd = std::sqrt(sq / p.count - mean * mean);
  EXPECT_NEAR(mean, 0.5, 0.03);
  EXPECT_NEAR(sd, 4, 0.03);
  EXPECT_EQ(zeros, 0);
  // A normal's tails: 0.27% beyond 3 sigma.
  EXPECT_NEAR(static_cast<double>(beyond3) / p.count, 0.0027, 0.0006);
}

TEST(Inputs, UniformAndRandIntStayInRange) {
  InitSpec uniform;
  uniform.distribution = InitSpec::Distribution::kUniform;
  uniform.low = 0.5;
  uniform.high = 2;
  Arg u = buffer(DType::kFloat32, uniform);
  ArgPlan pu = plan_for(u, 100000);
  auto du = make_input(pu, 3, 0);
  double lo = 10, hi = -10;
  for (int64_t i = 0; i < pu.count; ++i) {
    double v = load_as_double(DType::kFloat32, du.data(), i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_GE(lo, 0.5);
  EXPECT_LT(lo, 0.51);
  EXPECT_LE(hi, 2);
  EXPECT_GT(hi, 1.99);

  InitSpec randint;
  randint.distribution = InitSpec::Distribution::kRandInt;
  for (DType dtype : {DType::kInt32, DType::kInt64}) {
    Arg r = buffer(dtype, randint);
    ArgPlan pr = plan_for(r, 100000);
    pr.randint_low = 3;
    pr.randint_high = 8;  // exclusive
    auto dr = make_input(pr, 3, 0);
    std::vector<int> seen(8, 0);
    for (int64_t i = 0; i < pr.count; ++i) {
      int64_t v = dtype == DType::kInt64 ? [&] {
        int64_t x;
        std::memcpy(&x, dr.data() + i * 8, 8);
        return x;
      }()
                                         : static_cast<int64_t>(load_as_double(dtype, dr.data(), i));
      ASSERT_GE(v, 3);
      ASSERT_LT(v, 8);
      ++seen[v];
    }
    for (int v = 3; v < 8; ++v) EXPECT_NEAR(seen[v], 20000, 800) << v;
  }
}

TEST(ParallelFor, CoversTheRangeOnceInChunks) {
  std::vector<int> hits(100003, 0);
  parallel_for(
      static_cast<int64_t>(hits.size()), 1000,
      [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) ++hits[i];
      },
      4);
  for (int h : hits) ASSERT_EQ(h, 1);
  int calls = 0;
  parallel_for(
      10, 1000, [&](int64_t b, int64_t e) { calls += b == 0 && e == 10; }, 4);
  EXPECT_EQ(calls, 1);  // below the grain: one chunk on the calling thread
}

}  // namespace
}  // namespace kgate
