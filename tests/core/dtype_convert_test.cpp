// The bulk conversions give exactly what the per-element ones give: every
// half bit pattern read, and doubles written as every type (ties, subnormals,
// overflow, the F16C path and the scalar tail alike).
#include "core/dtype_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace kgate {
namespace {

const DType kTypes[] = {DType::kFloat64, DType::kFloat32, DType::kFloat16, DType::kBFloat16,
                        DType::kInt64,   DType::kInt32,   DType::kUInt8};

TEST(DtypeConvert, LoadingARangeReadsWhatLoadAsDoubleReads) {
  std::vector<uint16_t> every(65536);
  for (uint32_t b = 0; b < every.size(); ++b) every[b] = static_cast<uint16_t>(b);
  for (DType type : {DType::kFloat16, DType::kBFloat16}) {
    std::vector<double> out(every.size() - 3);
    load_range_as_double(type, every.data(), 3, every.size(), out.data());  // an odd start
    for (size_t k = 0; k < out.size(); ++k) {
      double want = load_as_double(type, every.data(), k + 3);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(out[k])) << k;
      else
        ASSERT_EQ(out[k], want) << dtype_name(type) << " bits " << k + 3;
    }
  }
  std::mt19937_64 rng(5);
  std::vector<unsigned char> bytes(8 * 1001);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng());
  for (DType type : kTypes) {
    const int64_t n = static_cast<int64_t>(bytes.size() / dtype_size(type));
    std::vector<double> out(n);
    load_range_as_double(type, bytes.data(), 0, n, out.data());
    for (int64_t k = 0; k < n; ++k) {
      double want = load_as_double(type, bytes.data(), k);
      if (std::isnan(want))
        EXPECT_TRUE(std::isnan(out[k]));
      else
        ASSERT_EQ(out[k], want) << dtype_name(type) << " element " << k;
    }
  }
}

TEST(DtypeConvert, StoringARangeWritesWhatStoreFromDoubleWrites) {
  std::vector<double> values = {0.0,
                                -0.0,
                                1.0,
                                -2.5,
                                65504.0,
                                65519.99,
                                65520.0,
                                1e9,
                                -1e9,
                                std::ldexp(1.0, -24),
                                std::ldexp(1.5, -24),  // a tie between subnormals
                                std::ldexp(1.0, -25),  // a tie with zero
                                std::ldexp(1.0, -14) * (1 - 1e-4),
                                1.0 + std::ldexp(1.0, -11),  // a tie between halves
                                1.0 + 3 * std::ldexp(1.0, -11),
                                std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(),
                                1e-320,
                                3.0000001,
                                200.7};
  std::mt19937_64 rng(9);
  std::normal_distribution<double> normal(0, 3);
  for (int i = 0; i < 5000; ++i) values.push_back(normal(rng) * (i % 7 == 0 ? 1e-5 : 1));
  for (DType type : kTypes) {
    const size_t size = dtype_size(type);
    std::vector<unsigned char> want(values.size() * size + size), got(values.size() * size + size);
    for (size_t k = 0; k < values.size(); ++k)
      store_from_double(type, want.data(), k + 1, values[k]);
    store_range_from_double(type, values.data(), static_cast<int64_t>(values.size()), got.data(),
                            1);
    for (size_t k = 0; k < values.size(); ++k)
      ASSERT_EQ(std::memcmp(want.data() + (k + 1) * size, got.data() + (k + 1) * size, size), 0)
          << dtype_name(type) << " value " << values[k];
  }
  // A NaN keeps the canonical half NaN store_from_double writes.
  std::vector<double> with_nan(9, 1.0);
  with_nan[4] = std::nan("");
  std::vector<uint16_t> halves(9);
  store_range_from_double(DType::kFloat16, with_nan.data(), 9, halves.data(), 0);
  uint16_t canonical = 0;
  store_from_double(DType::kFloat16, &canonical, 0, std::nan(""));
  EXPECT_EQ(halves[4], canonical);
}

}  // namespace
}  // namespace kgate
