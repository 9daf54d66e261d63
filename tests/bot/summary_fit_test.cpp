// GitHub's 65535-character summary limit: passing rows go first, failures stay.
#include <gtest/gtest.h>

#include "bot/summary_fit.h"

namespace kgate::bot {
namespace {

TEST(SummaryFitTest, ShortSummariesAreUntouched) {
  EXPECT_EQ(fit_summary("| a |\n|---|\n| ok |\n"), "| a |\n|---|\n| ok |\n");
}

TEST(SummaryFitTest, DropsPassingRowsAndKeepsFailuresAndHeaders) {
  std::string md = "## kgate\n\n| shape | verdict |\n|---|---|\n";
  for (int i = 0; i < 2000; ++i)
    md += "| passing-shape-" + std::to_string(i) + " | same, within noise |\n";
  md += "| broken | ❌ max error 3.1e-01 |\n";
  for (int i = 0; i < 2000; ++i) md += "| more-" + std::to_string(i) + " | faster by a bit |\n";
  md += "| late | slower (+7.2%) |\n\nfooter text\n";
  std::string out = fit_summary(md, 4000);
  EXPECT_LE(out.size(), 4000u);
  EXPECT_NE(out.find("| shape | verdict |\n|---|---|"), std::string::npos);
  EXPECT_NE(out.find("| broken | ❌ max error 3.1e-01 |"), std::string::npos);
  EXPECT_NE(out.find("| late | slower (+7.2%) |"), std::string::npos);
  EXPECT_NE(out.find("footer text"), std::string::npos);
  EXPECT_NE(out.find("passing rows omitted"), std::string::npos);
  // Rows are dropped from the end: early passing rows survive.
  EXPECT_NE(out.find("passing-shape-0 "), std::string::npos);
}

TEST(SummaryFitTest, CutsOnACharacterBoundaryAsALastResort) {
  std::string md;
  for (int i = 0; i < 1000; ++i) md += "é failure text without a table ";
  std::string out = fit_summary(md, 1001);
  EXPECT_LE(out.size(), 1001u);
  EXPECT_NE(out.find("truncated"), std::string::npos);
  EXPECT_EQ(utf8_prefix("aé", 2), "a");  // never half of é
}

TEST(SummaryFitTest, FailureRowsAreRecognised) {
  EXPECT_TRUE(is_failure_row("| x | FAIL |"));
  EXPECT_TRUE(is_failure_row("| x | slower |"));
  EXPECT_TRUE(is_failure_row("| x | ✗ |"));
  EXPECT_FALSE(is_failure_row("| x | faster |"));
  EXPECT_FALSE(is_failure_row("slower, but not a row"));
}

}  // namespace
}  // namespace kgate::bot
