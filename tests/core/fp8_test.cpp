// The FP8 formats as CUDA's cuda_fp8.h rounds to them: nearest even,
// saturated to the largest finite value; every finite byte survives a round
// trip through double.
#include "core/fp8.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/dtype.h"

namespace kgate {
namespace {

TEST(Fp8, KnownValues) {
  EXPECT_EQ(fp8::from_double(1.0, fp8::kE4M3), 0x38);
  EXPECT_EQ(fp8::from_double(0.5, fp8::kE4M3), 0x30);
  EXPECT_EQ(fp8::from_double(448.0, fp8::kE4M3), 0x7e);
  EXPECT_EQ(fp8::from_double(1000.0, fp8::kE4M3), 0x7e);  // saturated
  EXPECT_EQ(fp8::from_double(-1000.0, fp8::kE4M3), 0xfe);
  EXPECT_EQ(fp8::from_double(INFINITY, fp8::kE4M3), 0x7e);  // no infinity in E4M3
  EXPECT_EQ(fp8::from_double(NAN, fp8::kE4M3), 0x7f);
  EXPECT_EQ(fp8::from_double(std::ldexp(1.0, -9), fp8::kE4M3), 0x01);  // the smallest subnormal
  EXPECT_EQ(fp8::from_double(1.0625, fp8::kE4M3), 0x38);               // a tie: to even (1.0)
  EXPECT_EQ(fp8::from_double(1.1875, fp8::kE4M3), 0x3a);               // a tie: to even (1.25)
  EXPECT_EQ(fp8::from_double(1.0, fp8::kE5M2), 0x3c);
  EXPECT_EQ(fp8::from_double(-2.0, fp8::kE5M2), 0xc0);
  EXPECT_EQ(fp8::from_double(57344.0, fp8::kE5M2), 0x7b);
  EXPECT_EQ(fp8::from_double(INFINITY, fp8::kE5M2), 0x7b);  // saturated
  EXPECT_TRUE(std::isnan(fp8::to_double(0x7f, fp8::kE4M3)));
  EXPECT_TRUE(std::isinf(fp8::to_double(0x7c, fp8::kE5M2)));
  // The poison byte is NaN in both, as for every float type.
  EXPECT_TRUE(std::isnan(load_as_double(DType::kFp8E4M3, "\xff", 0)));
  EXPECT_TRUE(std::isnan(load_as_double(DType::kFp8E5M2, "\xff", 0)));
}

TEST(Fp8, EveryFiniteByteSurvivesARoundTrip) {
  for (const fp8::Format* f : {&fp8::kE4M3, &fp8::kE5M2}) {
    for (int b = 0; b < 256; ++b) {
      const double v = fp8::to_double(static_cast<uint8_t>(b), *f);
      if (!std::isfinite(v)) continue;
      EXPECT_EQ(fp8::from_double(v, *f), b) << "byte " << b << " = " << v;
    }
  }
}

TEST(Fp8, ParsedAsCSpellsThem) {
  EXPECT_EQ(parse_dtype("__nv_fp8_e4m3"), DType::kFp8E4M3);
  EXPECT_EQ(parse_dtype("fp8_e5m2"), DType::kFp8E5M2);
  EXPECT_EQ(dtype_size(DType::kFp8E4M3), 1u);
  EXPECT_TRUE(dtype_is_float(DType::kFp8E5M2));
}

}  // namespace
}  // namespace kgate
