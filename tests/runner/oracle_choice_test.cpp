// Which oracle judges each shape of a gate: the host reference on shapes
// small enough for it (measured first), a reference kernel on the others,
// the base only once it passed its own check on a small shape.
#include "runner/oracle_choice.h"

#include <gtest/gtest.h>

namespace kgate {
namespace {

Kernel kernel_with_shapes() {
  Kernel k;
  k.name = "k";
  Arg out;
  out.name = "out";
  out.is_buffer = true;
  out.role = ArgRole::kOutput;
  out.count = *Expression::parse("n");
  k.args.push_back(out);
  const std::vector<std::pair<std::string, int64_t>> sizes = {
      {"big", 1 << 23}, {"small", 64}, {"huge", 1 << 24}, {"tiny", 1}};
  for (const auto& [name, n] : sizes) {
    Shape s;
    s.name = name;
    s.variables["n"] = n;
    k.shapes.push_back(s);
  }
  return k;
}

TEST(OracleChoice, SmallShapesGoFirstAndAreJudgedByTheHostReference) {
  Kernel k = kernel_with_shapes();
  GatePolicy p;
  p.host_reference_max_elements = 1 << 22;
  EXPECT_EQ(shape_elements(k, k.shapes[0]), 1 << 23);
  EXPECT_EQ(gating_order(k, p), (std::vector<size_t>{1, 3, 0, 2}));
  OracleState state;
  EXPECT_EQ(choose_oracle(k, k.shapes[1], p, state), OracleKind::kHostReference);
  // Large shapes: the host reference unless something faster is there.
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state), OracleKind::kHostReference);
  state.device_reference = true;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state), OracleKind::kDeviceReference);
  EXPECT_EQ(choose_oracle(k, k.shapes[1], p, state), OracleKind::kHostReference);
}

TEST(OracleChoice, TheBaseJudgesOnlyOnceItPassedItsOwnCheck) {
  Kernel k = kernel_with_shapes();
  GatePolicy p;
  p.oracle = GatePolicy::Oracle::kBase;
  OracleState state;
  std::string note;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state, &note), OracleKind::kHostReference);
  EXPECT_NE(note.find("no base"), std::string::npos) << note;
  state.base_available = true;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state, &note), OracleKind::kHostReference);
  EXPECT_NE(note.find("no small shape checked the base"), std::string::npos) << note;
  state.base_checks_passed = 2;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state, &note), OracleKind::kBase);
  EXPECT_EQ(note, "");
  EXPECT_EQ(choose_oracle(k, k.shapes[1], p, state, &note), OracleKind::kHostReference);
  state.base_checks_failed = 1;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state, &note), OracleKind::kHostReference);
  EXPECT_NE(note.find("the base failed its own check"), std::string::npos) << note;
  // A reference kernel beats the base: it is a real reference.
  state.base_checks_failed = 0;
  state.device_reference = true;
  EXPECT_EQ(choose_oracle(k, k.shapes[0], p, state, &note), OracleKind::kDeviceReference);
}

}  // namespace
}  // namespace kgate
