// The memory rules' messages and layout, without running a kernel: guard
// zones name the buffer and the extent of an out-of-bounds write, changed
// inputs are counted, and the back guard starts right after the last byte
// whatever the buffer's size (an overrun of a 7-float buffer must not land
// in allocation padding).
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "runner/guard_zones.h"
#include "runner/input_integrity.h"

namespace kgate {
namespace {

std::vector<unsigned char> intact(size_t first_offset, size_t bytes) {
  std::vector<unsigned char> v(bytes);
  for (size_t i = 0; i < bytes; ++i) v[i] = guard_byte(first_offset + i);
  return v;
}

TEST(GuardZones, BackGuardStartsAtTheLastByteAndEndsOnA256ByteBoundary) {
  for (size_t bytes : {1, 7, 28, 255, 256, 257, 4096, 4097}) {
    size_t back = back_guard_bytes(bytes);
    EXPECT_GE(back, 256u) << bytes;
    EXPECT_LT(back, 512u) << bytes;
    EXPECT_EQ((kFrontGuardBytes + bytes + back) % 256, 0u) << bytes;
  }
  // The pattern never holds the poison or zeros (an unwritten or zeroed
  // guard byte must read as changed).
  for (size_t i = 0; i < 1024; ++i) {
    EXPECT_NE(guard_byte(i), 0xFF);
    EXPECT_NE(guard_byte(i), 0x00);
  }
}

TEST(GuardZones, IntactGuardsSayNothing) {
  EXPECT_EQ(describe_guard_damage("out", 4, intact(0, 256), intact(256, 300)), "");
}

TEST(GuardZones, OneFloatPastTheEndIsFourBytes) {
  auto back = intact(256, 300);
  float value = 1.5f;
  std::memcpy(back.data(), &value, 4);
  EXPECT_EQ(describe_guard_damage("out", 4, intact(0, 256), back),
            "wrote 4 bytes past the end of 'out'");
}

TEST(GuardZones, ExtentIsRoundedToWholeElements) {
  // A float store whose last byte happens to equal the pattern still counts as 4 bytes.
  auto back = intact(256, 300);
  back[0] ^= 0x5A;
  back[1] ^= 0x5A;
  EXPECT_EQ(describe_guard_damage("y", 4, intact(0, 256), back),
            "wrote 4 bytes past the end of 'y'");
  EXPECT_EQ(describe_guard_damage("h", 2, intact(0, 256), back),
            "wrote 2 bytes past the end of 'h'");
}

TEST(GuardZones, WritesBeforeTheStartCountFromTheFirstChangedByte) {
  auto front = intact(0, 256);
  for (size_t i = 240; i < 256; ++i) front[i] = 0;
  EXPECT_EQ(describe_guard_damage("x", 4, front, intact(256, 300)),
            "wrote 16 bytes before the start of 'x'");
  front[0] = 0;
  EXPECT_EQ(describe_guard_damage("x", 4, front, intact(256, 300)),
            "wrote at least 256 bytes before the start of 'x'");
}

TEST(GuardZones, BothEndsAreReported) {
  auto front = intact(0, 256), back = intact(256, 260);
  front[255] ^= 1;
  back[9] ^= 1;
  EXPECT_EQ(describe_guard_damage("z", 1, front, back),
            "wrote 10 bytes past the end of 'z'; wrote 1 bytes before the start of 'z'");
}

TEST(InputIntegrity, CountsChangedElementsAndNamesTheFirst) {
  Arg arg;
  arg.name = "x";
  arg.dtype = DType::kFloat16;
  arg.is_buffer = true;
  ArgPlan plan;
  plan.arg = &arg;
  plan.count = 6;
  plan.bytes = 12;
  std::vector<unsigned char> uploaded(12, 7), found = uploaded;
  EXPECT_EQ(describe_input_change(plan, uploaded, found), "");
  found[5] = 0;  // element 2
  found[9] = 0;  // element 4
  std::string why = describe_input_change(plan, uploaded, found);
  EXPECT_EQ(why.rfind("changed its input 'x' (2 elements, first at index 2)", 0), 0u) << why;
}

}  // namespace
}  // namespace kgate
