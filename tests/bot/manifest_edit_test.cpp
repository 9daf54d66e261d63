// kgate.json edits for a tuning result: made in the text, so comments and
// alignment survive and the diff is the changed list only; the result still
// loads as a manifest with the new defaults.
#include <gtest/gtest.h>

#include "bot/manifest_edit.h"
#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate::bot {
namespace {

std::string example_manifest() {
  return testing::read(testing::example_dir() / "kgate.json");
}

// Lines of `a` not in `b` at the same position (the texts have as many lines).
std::vector<std::string> changed_lines(const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  std::stringstream sa(a), sb(b);
  for (std::string la, lb; std::getline(sa, la) && std::getline(sb, lb);)
    if (la != lb) out.push_back(lb);
  return out;
}

TEST(ManifestEditTest, MovesTheChosenValueToTheFrontAndKeepsEverythingElse) {
  const std::string text = example_manifest();
  ManifestEdit edit{
      .kernel = "softmax", .backend = "host", .tunable_defaults = {{"ACCUMULATORS", 4}}};
  auto edited = edit_manifest_text(text, edit);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  auto lines = changed_lines(text, *edited);
  ASSERT_EQ(lines.size(), 1u) << *edited;
  EXPECT_EQ(lines[0],
            "          \"tunables\": {\"ACCUMULATORS\": [4, 1, 2, 8, 16], \"VEC\": [1, 8]}");
  // rmsnorm declares the same tunable first in the file: it is left alone.
  EXPECT_NE(edited->find("\"tunables\": {\"ACCUMULATORS\": [1, 2, 4, 8, 16], \"VEC\": [1, 8]}"),
            std::string::npos);
  EXPECT_NE(edited->find("// kgate manifest for the llm-ops example"), std::string::npos);

  auto manifest = parse_manifest(*edited, "kgate.json", testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Implementation* impl = manifest->kernel("softmax")->implementation("host");
  ASSERT_NE(impl, nullptr);
  EXPECT_EQ(impl->tunables.front().values.front(), 4);
}

TEST(ManifestEditTest, AddsCompileFlagsWhereTheImplementationHasNone) {
  const std::string text = example_manifest();
  ManifestEdit edit{.kernel = "rmsnorm",
                    .backend = "cuda",
                    .tunable_defaults = {{"BLOCK", 512}, {"UNROLL", 4}},
                    .extra_flags = {"--extra-device-vectorization"}};
  auto edited = edit_manifest_text(text, edit);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_NE(
      edited->find("\"tunables\": {\"BLOCK\": [512, 256, 128, 1024], \"UNROLL\": [4, 1, 2, 8], "
                   "\"VEC\": [1, 2, 4, 8]}"),
      std::string::npos)
      << *edited;
  // On a line of its own, indented like the members after it.
  EXPECT_NE(
      edited->find("\n          \"compile\": {\"flags\": [\"--extra-device-vectorization\"]},\n"
                   "          \"source\": \"csrc/rmsnorm.cu\""),
      std::string::npos)
      << *edited;
  auto manifest = parse_manifest(*edited, "kgate.json", testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Implementation* impl = manifest->kernel("rmsnorm")->implementation("cuda");
  EXPECT_EQ(impl->compile.flags, (std::vector<std::string>{"--extra-device-vectorization"}));

  // A second edit appends to the list that is now there, without repeating a flag.
  ManifestEdit more{.kernel = "rmsnorm",
                    .backend = "cuda",
                    .extra_flags = {"--extra-device-vectorization", "-lineinfo"}};
  auto again = edit_manifest_text(*edited, more);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_NE(again->find("\"flags\": [\"--extra-device-vectorization\", \"-lineinfo\"]"),
            std::string::npos)
      << *again;
}

TEST(ManifestEditTest, FlatKernelsCommentsInsideAndBadRequests) {
  const std::string text = R"({
  // flat form
  "kernels": [{"name": "k", "backend": "host", "source": "k.cpp", /* the list: */ "tunables": {"V": [1, /* two */ 2]},
               "compile": {}}]
})";
  auto edited = edit_manifest_text(
      text,
      {.kernel = "k", .backend = "host", .tunable_defaults = {{"V", 2}}, .extra_flags = {"-O3"}});
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  EXPECT_NE(edited->find("\"V\": [2, 1]"), std::string::npos) << *edited;
  EXPECT_NE(edited->find("\"compile\": {\"flags\": [\"-O3\"]}"), std::string::npos) << *edited;
  EXPECT_NE(edited->find("/* the list: */"), std::string::npos);

  auto no_kernel = edit_manifest_text(text, {.kernel = "nope", .backend = "host"});
  ASSERT_FALSE(no_kernel.ok());
  EXPECT_NE(no_kernel.error().message.find("no kernel named 'nope'"), std::string::npos);
  auto no_value =
      edit_manifest_text(text, {.kernel = "k", .backend = "host", .tunable_defaults = {{"V", 3}}});
  ASSERT_FALSE(no_value.ok());
  EXPECT_NE(no_value.error().message.find("has no value 3"), std::string::npos)
      << no_value.error().message;
  auto no_tunable =
      edit_manifest_text(text, {.kernel = "k", .backend = "host", .tunable_defaults = {{"W", 1}}});
  ASSERT_FALSE(no_tunable.ok());
  EXPECT_NE(no_tunable.error().message.find("no tunable 'W'"), std::string::npos);
}

TEST(ManifestEditTest, ACandidatesLaunchReplacesTheImplementationsLaunch) {
  const std::string text = example_manifest();
  ManifestEdit edit{.kernel = "rmsnorm", .backend = "cuda"};
  edit.launch = {{"grid", {"ceil_div(rows, 8)"}}, {"block", {32, 8}}, {"shared_bytes", 0}};
  auto edited = edit_manifest_text(text, edit);
  ASSERT_TRUE(edited.ok()) << edited.error().message;
  auto lines = changed_lines(text, *edited);
  ASSERT_EQ(lines.size(), 1u) << *edited;
  EXPECT_EQ(lines[0],
            "          \"launch\": {\"grid\": [\"ceil_div(rows, 8)\"], \"block\": [32, 8]},");
  auto manifest = parse_manifest(*edited, "kgate.json", testing::example_dir());
  ASSERT_TRUE(manifest.ok()) << manifest.error().message;
  const Implementation* impl = manifest->kernel("rmsnorm")->implementation("cuda");
  ASSERT_EQ(impl->launch.block.size(), 2u);
  EXPECT_EQ(impl->launch.grid[0].text(), "ceil_div(rows, 8)");
  // The reference kernel's launch (the same words further down) is left alone.
  EXPECT_NE(edited->find("\"launch\": {\"grid\": [\"rows\"], \"block\": [256]}"),
            std::string::npos);

  // Shared memory is written when there is some.
  edit.launch["shared_bytes"] = "BLOCK * 4";
  auto shared = edit_manifest_text(text, edit);
  ASSERT_TRUE(shared.ok()) << shared.error().message;
  EXPECT_NE(shared->find("\"block\": [32, 8], \"shared_bytes\": \"BLOCK * 4\"}"), std::string::npos)
      << *shared;

  // The host implementation has no launch to change; a launch needs grid and block.
  auto host = edit_manifest_text(
      text, {.kernel = "rmsnorm", .backend = "host", .launch = {{"grid", {1}}, {"block", {1}}}});
  ASSERT_FALSE(host.ok());
  EXPECT_NE(host.error().message.find("has no \"launch\""), std::string::npos)
      << host.error().message;
  auto half =
      edit_manifest_text(text, {.kernel = "rmsnorm", .backend = "cuda", .launch = {{"grid", {1}}}});
  ASSERT_FALSE(half.ok());
  EXPECT_NE(half.error().message.find("no grid or block"), std::string::npos);
}

}  // namespace
}  // namespace kgate::bot
