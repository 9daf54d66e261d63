// Tuned values written into the example kernels' own guarded defaults.
#include "bot/source_defaults.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace kgate::bot {
namespace {

TEST(SourceDefaults, RewritesTheGuardedDefinesOfTheExampleGemv) {
  const std::string source = testing::read(testing::example_dir() / "csrc/gemv.cu");
  ASSERT_NE(source.find("#define VEC 1\n"), std::string::npos);
  auto edit = set_source_defaults(source, {{"VEC", 8}, {"BATCH_TILE", 4}, {"NOT_THERE", 2}});
  EXPECT_EQ(edit.set, (std::vector<std::string>{"BATCH_TILE", "VEC"}));
  EXPECT_EQ(edit.absent, (std::vector<std::string>{"NOT_THERE"}));
  EXPECT_NE(edit.text.find("#define VEC 8\n"), std::string::npos);
  EXPECT_NE(edit.text.find("#define BATCH_TILE 4\n"), std::string::npos);
  EXPECT_EQ(edit.text.find("#define VEC 1\n"), std::string::npos);
  // Nothing else moved: the text differs from the source by the two values only.
  std::string back = set_source_defaults(edit.text, {{"VEC", 1}, {"BATCH_TILE", 1}}).text;
  EXPECT_EQ(back, source);
}

TEST(SourceDefaults, LeavesUnguardedDefinesAndCommentsAlone) {
  const std::string source =
      "// #define VEC 4 in a comment is not a default\n"
      "#define VEC 2  // unguarded: a constant, not a tunable default\n"
      "#ifndef UNROLL  // accesses in flight (tunable)\n"
      "#define UNROLL 1  // the first version\n"
      "#endif\n"
      "#ifndef UNROLL_MORE\n#define UNROLL_MORE 3\n#endif\n";
  auto edit = set_source_defaults(source, {{"VEC", 8}, {"UNROLL", 4}});
  EXPECT_EQ(edit.absent, (std::vector<std::string>{"VEC"}));
  EXPECT_NE(edit.text.find("#define UNROLL 4  // the first version\n"), std::string::npos);
  EXPECT_NE(edit.text.find("#define VEC 2  // unguarded"), std::string::npos);
  EXPECT_NE(edit.text.find("#define UNROLL_MORE 3\n"), std::string::npos);
}

}  // namespace
}  // namespace kgate::bot
