// Tunables with declared roles ({"values": [...], "role": "tile_rows"}) and
// an implementation's constraints ("BM % TM == 0"): both forms parse, a bad
// role or a constraint the defaults violate is an error naming its JSON path.
#include <gtest/gtest.h>

#include "core/manifest_loader.h"
#include "core/tunable_role.h"
#include "support/manifest_edit_test.h"
#include "support/test_support.h"

namespace kgate {
namespace {

const char* kManifest = R"~({
  "kernels": [{
    "name": "gemm",
    "impl": {"cuda": {"source": "gemm.cu", "entry": "gemm<BM, BN, BK, TM, TN>",
                      "launch": {"grid": ["ceil_div(N, BN)", "ceil_div(M, BM)"],
                                 "block": ["(BM / TM) * (BN / TN)"]},
                      "tunables": {"BM": {"values": [64, 128], "role": "tile_rows"},
                                   "BN": {"values": [64, 128], "role": "tile_cols"},
                                   "BK": {"values": [8, 16], "role": "tile_k"},
                                   "TM": {"values": [8, 4], "role": "thread_tile_rows"},
                                   "TN": [8, 4],
                                   "PAD": {"values": [0, 1]}},
                      "constraints": ["BM % TM == 0", "BN % TN == 0",
                                      "(BM / TM) * (BN / TN) <= 1024", "BM * BK >= 256 || TN == 4"]}},
    "args": [
      {"name": "C", "type": "float*", "count": "M * N", "role": "output"},
      {"name": "A", "type": "const float*", "count": "M * K"},
      {"name": "B", "type": "const float*", "count": "K * N"},
      {"name": "M", "type": "int32", "value": "M"},
      {"name": "N", "type": "int32", "value": "N"},
      {"name": "K", "type": "int32", "value": "K"}
    ],
    "shapes": [{"name": "square", "M": 256, "N": 256, "K": 256}],
    "reference": {"source": "gemm_ref.cpp", "entry": "gemm_ref"}
  }]
})~";

class TunableRolesTest : public testing::ManifestEditTest {
 protected:
  TunableRolesTest() : ManifestEditTest(kManifest, {"gemm.cu", "gemm_ref.cpp"}) {}
};

TEST_F(TunableRolesTest, BothFormsParseWithTheirRoles) {
  auto m = parse_after("", "");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Implementation& impl = *m->kernels[0].implementation("cuda");
  ASSERT_EQ(impl.tunables.size(), 6u);
  std::map<std::string, const Tunable*> by_name;
  for (const Tunable& t : impl.tunables) by_name[t.name] = &t;
  EXPECT_EQ(by_name["BM"]->role, "tile_rows");
  EXPECT_EQ(by_name["BM"]->values, (std::vector<int64_t>{64, 128}));
  EXPECT_EQ(by_name["TM"]->role, "thread_tile_rows");
  EXPECT_EQ(by_name["TN"]->role, "");  // the array form declares no role
  EXPECT_EQ(by_name["TN"]->values, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(by_name["PAD"]->role, "");  // the object form without a role
  EXPECT_EQ(impl.default_tunables().at("TM"), 8);
  ASSERT_EQ(impl.constraints.size(), 4u);
  EXPECT_EQ(impl.constraints[2].expression.text(), "(BM / TM) * (BN / TN) <= 1024");
  EXPECT_EQ(impl.constraints[2].json_path, "kernels[0].impl.cuda.constraints[2]");
}

TEST_F(TunableRolesTest, CheckConstraintsNamesTheViolatedOne) {
  auto m = parse_after("", "");
  ASSERT_TRUE(m.ok()) << m.error().message;
  const Implementation& impl = *m->kernels[0].implementation("cuda");
  EXPECT_TRUE(impl.check_constraints({{"BM", 128}, {"TM", 4}}).ok());
  auto bad = impl.check_constraints({{"BN", 128}, {"TN", 3}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("BN=128 TN=3 violates the constraint \"BN % TN == 0\""),
            std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("constraints[1]"), std::string::npos);
}

TEST_F(TunableRolesTest, DefaultsThatViolateAConstraintAreAnError) {
  std::string e = error_after("\"TM\": {\"values\": [8, 4]", "\"TM\": {\"values\": [3, 4]");
  EXPECT_NE(e.find("kernels[0].impl.cuda.constraints[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("BM=64 TM=3"), std::string::npos) << e;
  EXPECT_NE(e.find("violate the constraint \"BM % TM == 0\""), std::string::npos) << e;
  // A constraint that cannot be evaluated for the defaults is an error too.
  e = error_after("\"BM % TM == 0\"", "\"BM % (TM - 8) == 0\"");
  EXPECT_NE(e.find("division by zero"), std::string::npos) << e;
  EXPECT_NE(e.find("constraints[0]"), std::string::npos) << e;
}

TEST_F(TunableRolesTest, BadDeclarationsAreErrors) {
  std::string e = error_after("\"role\": \"tile_rows\"", "\"role\": \"rows\"");
  EXPECT_NE(e.find("kernels[0].impl.cuda.tunables.BM.role"), std::string::npos) << e;
  EXPECT_NE(e.find("tile_rows"), std::string::npos) << e;  // lists the known roles
  e = error_after("\"values\": [64, 128], \"role\": \"tile_rows\"", "\"role\": \"tile_rows\"");
  EXPECT_NE(e.find("tunables.BM.values"), std::string::npos) << e;
  e = error_after("\"values\": [0, 1]", "\"values\": [0, 1], \"step\": 1");
  EXPECT_NE(e.find("step"), std::string::npos) << e;
  e = error_after("\"BM % TM == 0\"", "\"BM % M == 0\"");
  EXPECT_NE(e.find("'M' is not a tunable"), std::string::npos) << e;
  e = error_after("\"BM % TM == 0\"", "7");
  EXPECT_NE(e.find("constraints[0]"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an expression as a string"), std::string::npos) << e;
  e = error_after("\"BM % TM == 0\"", "\"BM < TM < 4\"");
  EXPECT_NE(e.find("do not chain"), std::string::npos) << e;
}

TEST_F(TunableRolesTest, TheRoleListIsClosedAndDocumented) {
  EXPECT_TRUE(is_tunable_role("tile_k"));
  EXPECT_TRUE(is_tunable_role("block_size"));
  EXPECT_FALSE(is_tunable_role("BLOCK"));
  // Every role is documented in docs/manifest.md.
  std::string doc = testing::read(std::string(KGATE_SOURCE_DIR) + "/docs/manifest.md");
  for (std::string_view r : tunable_roles())
    EXPECT_NE(doc.find("`" + std::string(r) + "`"), std::string::npos) << r;
}

}  // namespace
}  // namespace kgate
