// A kernel's entry: a plain or qualified name, or a template-id whose
// arguments use tunables; anything else is refused when kgate.json loads,
// with a message that says what is wrong and what to write.
#include "core/entry_name.h"

#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "support/test_support.h"

namespace kgate {
namespace {

TEST(EntryName, APlainNameIsItsOwnInstantiation) {
  auto e = EntryName::parse("rmsnorm");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_FALSE(e->is_template());
  EXPECT_EQ(e->name(), "rmsnorm");
  EXPECT_EQ(e->unqualified(), "rmsnorm");
  EXPECT_TRUE(e->argument_names().empty());
  EXPECT_EQ(e->instantiate({{"rmsnorm", 3}}), "rmsnorm");
}

TEST(EntryName, ATemplateIdIsInstantiatedWithTheTunablesValues) {
  auto e = EntryName::parse("lib::detail::reduce6<float, BLOCK, true>");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_TRUE(e->is_template());
  EXPECT_EQ(e->name(), "lib::detail::reduce6");
  EXPECT_EQ(e->unqualified(), "reduce6");
  EXPECT_EQ(e->template_args(), (std::vector<std::string>{"float", "BLOCK", "true"}));
  EXPECT_EQ(e->argument_names(), (std::set<std::string>{"float", "BLOCK", "true"}));
  EXPECT_EQ(e->instantiate({{"BLOCK", 256}}), "lib::detail::reduce6<float, 256, true>");
  EXPECT_EQ(e->instantiate({{"BLOCK", 64}}), "lib::detail::reduce6<float, 64, true>");
}

TEST(EntryName, ExpressionsNestedTemplatesAndScopesAreKept) {
  auto e = EntryName::parse("sgemm<BM, BN * 2, (BK > 8), Tile<TM, TN>, cfg::BM, -TM>");
  ASSERT_TRUE(e.ok()) << e.error().message;
  EXPECT_EQ(e->template_args().size(), 6u);
  EXPECT_EQ(e->template_args()[3], "Tile<TM, TN>");
  // cfg::BM is another BM; a negative value keeps its sign apart from an operator.
  EXPECT_EQ(e->instantiate({{"BM", 128}, {"BN", 64}, {"BK", 16}, {"TM", -8}, {"TN", 8}}),
            "sgemm<128, 64 * 2, (16 > 8), Tile<(-8), 8>, cfg::BM, -(-8)>");
  auto shifted = EntryName::parse("f<Vec<float, 4>>");
  ASSERT_TRUE(shifted.ok()) << shifted.error().message;
  EXPECT_EQ(shifted->template_args(), (std::vector<std::string>{"Vec<float, 4>"}));
  auto empty = EntryName::parse("::g<>");
  ASSERT_TRUE(empty.ok()) << empty.error().message;
  EXPECT_TRUE(empty->is_template());
  EXPECT_TRUE(empty->template_args().empty());
  EXPECT_TRUE(EntryName::parse("h<1.5f, 0x10, 1e-3, 2u>").ok());
}

TEST(EntryName, MalformedEntriesAreRefusedWithTheReason) {
  struct Case {
    const char* entry;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{{"", "empty"},
                                         {"sgemm<32", "not closed"},
                                         {"foo bar", "unexpected 'b'"},
                                         {"foo(float*)", "unexpected '('"},
                                         {"3foo", "start with a letter"},
                                         {"foo<32>x", "after the template arguments"},
                                         {"foo<, 1>", "template argument 1 is empty"},
                                         {"foo<1, >", "template argument 2 is empty"},
                                         {"foo<(1>", "'(' is not closed"},
                                         {"foo<1)>", "closes nothing"},
                                         {"foo<\"a\">", "the character '\"'"},
                                         {"foo<1>; int x", "after the template arguments"},
                                         {"foo<{1}>", "the character '{'"},
                                         {"ns::", "start with a letter"}}) {
    auto e = EntryName::parse(c.entry);
    ASSERT_FALSE(e.ok()) << c.entry;
    EXPECT_NE(e.error().message.find(c.says), std::string::npos)
        << c.entry << ": " << e.error().message;
    // Every message says what an entry may be.
    EXPECT_NE(e.error().message.find("reduce6<float, BLOCK, true>"), std::string::npos);
  }
}

class EntryInManifest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* f : {"k.cu", "k_ref.cpp"}) testing::write(dir_ / f, "// source\n");
  }
  Result<Manifest> load(const std::string& entry) {
    std::string text = R"({"kernels": [{"name": "k",
      "impl": {"cuda": {"source": "k.cu", "entry": ")" +
                       entry + R"(", "launch": {"grid": ["n"], "block": ["BLOCK"]},
                        "tunables": {"BLOCK": [256, 128]}}},
      "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"},
               {"name": "n", "type": "int32", "value": "n"}],
      "shapes": [{"name": "s", "phase": "decode", "n": 7}],
      "reference": {"source": "k_ref.cpp", "entry": "k_ref"}}]})";
    return parse_manifest(text, "kgate.json", dir_.path());
  }
  testing::TempDir dir_;
};

TEST_F(EntryInManifest, ATemplateIdOverTunablesLoads) {
  auto m = load("reduce<float, BLOCK, true>");
  ASSERT_TRUE(m.ok()) << m.error().message;
  EXPECT_EQ(m->kernels[0].implementation("cuda")->entry, "reduce<float, BLOCK, true>");
}

TEST_F(EntryInManifest, AMalformedEntryFailsValidationNamingTheField) {
  auto m = load("sgemm_global_mem_coalesce<32");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error().kind, ExitCode::kBadInput);
  EXPECT_NE(m.error().message.find("kernels[0].impl.cuda.entry"), std::string::npos)
      << m.error().message;
  EXPECT_NE(m.error().message.find("not closed"), std::string::npos) << m.error().message;
}

TEST_F(EntryInManifest, AShapeVariableCannotBeATemplateArgument) {
  auto m = load("reduce<float, n>");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().message.find("'n' is a variable of shape 's'"), std::string::npos)
      << m.error().message;
}

TEST_F(EntryInManifest, KgateValidateRejectsAMalformedEntry) {
  testing::write(dir_ / "kgate.json", R"~({"kernels": [{"name": "k",
      "impl": {"cuda": {"source": "k.cu", "entry": "sgemm<32>(x)",
                        "launch": {"grid": ["n"], "block": [32]}}},
      "args": [{"name": "out", "type": "float*", "count": "n", "role": "output"}],
      "shapes": [{"name": "s", "phase": "decode", "n": 7}],
      "reference": {"source": "k_ref.cpp", "entry": "k_ref"}}]})~");
  auto out = testing::run_kgate({"validate", dir_.path().string()});
  EXPECT_EQ(out.exit_code, 2) << out.out << out.err;
  EXPECT_NE(out.err.find("entry: \"sgemm<32>(x)\" is not a kernel name"), std::string::npos)
      << out.err;
}

}  // namespace
}  // namespace kgate
