#include "core/expression.h"

#include <gtest/gtest.h>

namespace kgate {
namespace {

int64_t eval(const std::string& text, const Variables& vars = {}) {
  auto e = Expression::parse(text);
  EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message);
  auto v = e->evaluate(vars);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.error().message);
  return v.ok() ? *v : -999999;
}

std::string eval_error(const std::string& text, const Variables& vars = {}) {
  auto e = Expression::parse(text);
  if (!e.ok()) return e.error().message;
  auto v = e->evaluate(vars);
  return v.ok() ? "" : v.error().message;
}

TEST(Expression, PrecedenceAndAssociativity) {
  EXPECT_EQ(eval("2 + 3 * 4"), 14);
  EXPECT_EQ(eval("(2 + 3) * 4"), 20);
  EXPECT_EQ(eval("20 - 5 - 3"), 12);  // left-associative
  EXPECT_EQ(eval("100 / 10 / 5"), 2);
  EXPECT_EQ(eval("7 % 4 * 3"), 9);
  EXPECT_EQ(eval("-3 * -2"), 6);
  EXPECT_EQ(eval("- (4 - 10)"), 6);
  EXPECT_EQ(eval("2 * 3 + 4 * 5 - 6 / 2"), 23);
}

TEST(Expression, VariablesAndFunctions) {
  Variables v{{"rows", 3}, {"cols", 4097}, {"BLOCK", 256}};
  EXPECT_EQ(eval("rows * cols", v), 12291);
  EXPECT_EQ(eval("ceil_div(cols, BLOCK)", v), 17);
  EXPECT_EQ(eval("ceil_div(4096, 256)"), 16);
  EXPECT_EQ(eval("min(rows, cols, 2)", v), 2);
  EXPECT_EQ(eval("max(rows, ceil_div(cols, BLOCK) * 2)", v), 34);
  EXPECT_EQ(eval("  rows*(cols+1)  ", v), 12294);
}

TEST(Expression, NamesListsVariablesNotFunctions) {
  auto e = Expression::parse("ceil_div(rows * cols, BLOCK) + max(a, 1)");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->names(), (std::set<std::string>{"BLOCK", "a", "cols", "rows"}));
}

TEST(Expression, OverflowIsAnError) {
  EXPECT_NE(eval_error("9223372036854775807 + 1").find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("4294967296 * 4294967296").find("overflow"), std::string::npos);
  EXPECT_NE(eval_error("99999999999999999999").find("64 bits"), std::string::npos);
  EXPECT_NE(eval_error("-9223372036854775807 - 2").find("overflow"), std::string::npos);
  EXPECT_EQ(eval("9223372036854775806 + 1"), INT64_MAX);
}

TEST(Expression, DivisionByZeroIsAnError) {
  EXPECT_NE(eval_error("1 / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(eval_error("5 % (2 - 2)").find("division by zero"), std::string::npos);
  EXPECT_NE(eval_error("ceil_div(4, n)", {{"n", 0}}).find("division by zero"), std::string::npos);
}

TEST(Expression, UnknownNameSaysWhatIsKnown) {
  std::string message = eval_error("rows * colz", {{"rows", 1}, {"cols", 2}});
  EXPECT_NE(message.find("unknown name 'colz'"), std::string::npos) << message;
  EXPECT_NE(message.find("cols, rows"), std::string::npos) << message;
}

TEST(Expression, SyntaxErrorsNameTheColumn) {
  EXPECT_NE(eval_error("2 +").find("ended"), std::string::npos);
  EXPECT_NE(eval_error("(2 + 3").find("expected ')'"), std::string::npos);
  EXPECT_NE(eval_error("2 $ 3").find("column 3"), std::string::npos);
  EXPECT_NE(eval_error("sqrt(4)").find("unknown function 'sqrt'"), std::string::npos);
  EXPECT_NE(eval_error("ceil_div(4)").find("2 arguments"), std::string::npos);
  EXPECT_NE(eval_error("1.5 * 2").find("only integers"), std::string::npos);
  EXPECT_NE(eval_error("").find("ended"), std::string::npos);
}

TEST(Expression, ComparisonsAndLogicYieldZeroOrOne) {
  Variables v{{"BM", 64}, {"TM", 8}, {"BN", 64}, {"TN", 8}};
  EXPECT_EQ(eval("BM % TM == 0", v), 1);
  EXPECT_EQ(eval("BM % 3 == 0", v), 0);
  EXPECT_EQ(eval("(BM / TM) * (BN / TN) <= 1024", v), 1);
  EXPECT_EQ(eval("(BM / TM) * (BN / TN) < 64", v), 0);
  EXPECT_EQ(eval("BM != BN", v), 0);
  EXPECT_EQ(eval("BM > TM && BN >= 64", v), 1);
  EXPECT_EQ(eval("BM < TM || BN > 64", v), 0);
  EXPECT_EQ(eval("!(BM == 64)", v), 0);
  EXPECT_EQ(eval("!0 + !5", v), 1);
  EXPECT_EQ(eval("1 + 2 == 3"), 1);          // arithmetic binds tighter
  EXPECT_EQ(eval("1 || 0 && 0"), 1);         // && binds tighter than ||
  EXPECT_EQ(eval("(1 < 2) + (3 >= 3)"), 2);  // a comparison is a number
  EXPECT_EQ(eval("max(BM > 0, 0)", v), 1);
}

TEST(Expression, LogicStopsAtTheDecidingOperand) {
  // The right side would divide by zero: it is never evaluated.
  EXPECT_EQ(eval("TM != 0 && BM % TM == 0", {{"TM", 0}, {"BM", 64}}), 0);
  EXPECT_EQ(eval("TM == 0 || BM % TM == 0", {{"TM", 0}, {"BM", 64}}), 1);
  // Where it decides nothing, its errors stay errors.
  EXPECT_NE(eval_error("1 && 1 / 0").find("division by zero"), std::string::npos);
  EXPECT_NE(eval_error("0 || x", {}).find("unknown name 'x'"), std::string::npos);
}

TEST(Expression, ComparisonErrorsAreClear) {
  EXPECT_NE(eval_error("1 < 2 < 3").find("do not chain"), std::string::npos);
  EXPECT_NE(eval_error("a = 1", {{"a", 1}}).find("unexpected '='"), std::string::npos);
  EXPECT_NE(eval_error("1 @ 1").find("unexpected '@'"), std::string::npos);
  EXPECT_NE(eval_error("1 ==").find("ended"), std::string::npos);
  EXPECT_NE(eval_error("!= 1").find("found '!'"), std::string::npos);
}

TEST(Expression, ConditionalChoosesOneSideAndEvaluatesOnlyIt) {
  Variables v{{"cols", 512}};
  EXPECT_EQ(eval("cols < 1024 ? 32 : 1024", v), 32);
  EXPECT_EQ(eval("cols >= 512 ? 1024 : 32", v), 1024);
  // Right to left, as in C: a ? b : (c ? d : e).
  EXPECT_EQ(eval("cols < 64 ? 1 : cols < 1024 ? 2 : 3", v), 2);
  EXPECT_EQ(eval("(cols > 0 ? cols : 1) * 2", v), 1024);
  // The side not chosen is not evaluated: no division by zero.
  EXPECT_EQ(eval("cols == 0 ? 0 : 4096 / cols", v), 8);
  EXPECT_EQ(eval("cols != 0 ? 7 : 1 / 0", v), 7);
  EXPECT_NE(eval_error("cols ? 1", v).find("expected ':'"), std::string::npos);
}

TEST(Expression, BitwiseAndShiftsFollowCPrecedence) {
  EXPECT_EQ(eval("1 << 10"), 1024);
  EXPECT_EQ(eval("1024 >> 3"), 128);
  EXPECT_EQ(eval("1 << 2 + 1"), 8);  // + binds tighter than <<
  EXPECT_EQ(eval("6 & 3"), 2);
  EXPECT_EQ(eval("6 | 3"), 7);
  EXPECT_EQ(eval("6 ^ 3"), 5);
  EXPECT_EQ(eval("~0"), -1);
  EXPECT_EQ(eval("1 | 2 & 4"), 1);   // & binds tighter than |
  EXPECT_EQ(eval("5 & 1 == 1"), 1);  // == binds tighter than &, as in C
  EXPECT_EQ(eval("1 << 3 < 9"), 1);
  EXPECT_EQ(eval("1 && 2 | 0"), 1);
  // The magic numbers of a division by a constant (ggml's fastdiv): exact in 64 bits.
  Variables d{{"d", 4097}};
  EXPECT_EQ(eval("((1 << 32) * ((1 << ceil_log2(d)) - d)) / d + 1", d), 4292870656);
  EXPECT_NE(eval_error("1 << 63").find("shift by 63"), std::string::npos);
  EXPECT_NE(eval_error("-1 << 2").find("negative"), std::string::npos);
  EXPECT_NE(eval_error("(1 << 62) << 1").find("overflow"), std::string::npos);
}

TEST(Expression, MoreFunctions) {
  EXPECT_EQ(eval("round_up(1000, 256)"), 1024);
  EXPECT_EQ(eval("round_up(1024, 256)"), 1024);
  EXPECT_EQ(eval("abs(3 - 10)"), 7);
  EXPECT_EQ(eval("ceil_log2(1)"), 0);
  EXPECT_EQ(eval("ceil_log2(4096)"), 12);
  EXPECT_EQ(eval("ceil_log2(4097)"), 13);
  EXPECT_EQ(eval("floor_log2(4097)"), 12);
  EXPECT_NE(eval_error("ceil_log2(0)").find("positive"), std::string::npos);
  EXPECT_NE(eval_error("abs(1, 2)").find("abs takes 1 argument, got 2"), std::string::npos);
  EXPECT_NE(eval_error("pow(2, 3)").find("unknown function 'pow' (known: ceil_div, round_up"),
            std::string::npos);
}

}  // namespace
}  // namespace kgate
