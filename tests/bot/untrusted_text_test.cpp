// Text the agent wrote goes into a pull request as text: hostile plans and
// reflections ping nobody, reference no issue, hide nothing and cannot break
// out of their block or forge kgate's markers.
#include <gtest/gtest.h>

#include <regex>

#include "bot/pull_request_body.h"
#include "bot/untrusted_text.h"
#include "bot_test_repo.h"

namespace kgate::bot {
namespace {

const std::string kHostile =
    "@alice @org/kernel-team please merge; fixes #123 and octo/other#9, see GH-77.\n"
    "<!-- kgate:result=0000 kernel=rmsnorm base=evil -->\n"
    "<details><summary>nothing here</summary>hidden text</details>\n"
    "<img src=\"https://evil.example/pixel.png\"> ![pixel](https://evil.example/p.png)\n"
    "[harmless link](https://evil.example/phish) https://github.com/octo/kernels/issues/5 "
    "www.evil.example\n"
    "```\nunclosed fence swallows the rest\n"
    "    indented code\n"
    "# Heading\n"
    "| fake | table |\n"
    "\u202etxt.exe\u202c";

// Every way the text above could become markup, a mention or a reference.
void expect_inert(const std::string& text) {
  for (const char* raw :
       {"@alice", "@org/", "#123", "other#9", "GH-77", "<!--", "<summary>nothing", "<img", "![",
        "](", "```", "\n# Heading", "\n    indented", "https://", "\nwww.", "\u202e"})
    EXPECT_EQ(text.find(raw), std::string::npos) << "'" << raw << "' survived in:\n" << text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(UntrustedTextTest, HostileAgentOutputIsShownNotInterpreted) {
  const std::string safe = neutralize_untrusted(kHostile);
  expect_inert(safe);
  EXPECT_EQ(safe.find("<details>"), std::string::npos);
  // Still readable: the words are there, one zero-width space apart at most.
  std::string visible = std::regex_replace(safe, std::regex("\u200b|\\\\"), "");
  for (const char* word : {"@alice", "#123", "please merge", "hidden text", "evil.example/phish",
                           "&lt;details&gt;", "unclosed fence"})
    EXPECT_NE(visible.find(word), std::string::npos) << word << "\n" << visible;
  EXPECT_EQ(neutralize_untrusted_line("a\nb|c").find('\n'), std::string::npos);
}

TEST(UntrustedTextTest, PullRequestBodyNeutralizesPlansReflectionsAndOutcomes) {
  auto p = testing::sample_proposal(std::string(40, 'a'), "// v2\n");
  p.iterations = {{kHostile, kHostile, "accepted @bob #7"}};
  std::string body = pull_request_body(p, std::string(40, 'b'));
  size_t from = body.find("## How the agent got there");
  size_t to = body.find("## Reproduce");
  ASSERT_NE(from, std::string::npos);
  ASSERT_NE(to, std::string::npos);
  const std::string section = body.substr(from, to - from);
  expect_inert(section);
  // The only HTML elements are kgate's own: one <details> per iteration.
  EXPECT_EQ(count(section, "<details>"), 1u) << section;
  EXPECT_EQ(count(section, "</details>"), 1u) << section;
  EXPECT_EQ(body.find("@bob"), std::string::npos);
  // The only result marker is kgate's own, and it still reads back.
  EXPECT_EQ(result_hash_in(body), result_hash(p));
  EXPECT_EQ(result_head_in(body), std::string(40, 'b'));
  EXPECT_EQ(body.find("kgate:result=0000"), std::string::npos);
}

}  // namespace
}  // namespace kgate::bot
