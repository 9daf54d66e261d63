#include "bot/pull_request_body.h"

#include <cstdio>

#include "bot/latency_chart.h"
#include "bot/summary_fit.h"
#include "bot/untrusted_text.h"
#include "core/number_format.h"
#include "core/redact.h"

namespace kgate::bot {
namespace {

// Table cells must not break the row.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n')
      out += ' ';
    else
      out += c;
  }
  return out;
}

std::string fenced(const std::string& text) {
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += '`';
  return fence + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") + fence + "\n";
}

}  // namespace

std::string format_change(double change, double ci_low, double ci_high) {
  std::string s = format_percent(change);
  if (ci_low != 0 || ci_high != 0)
    s += " [" + format_percent(ci_low) + ", " + format_percent(ci_high) + "]";
  return s;
}

std::string pull_request_title(const PullRequestProposal& p) {
  const std::string speed = format_speedup(p.speedup);
  std::string title = "kgate: " + p.kernel + " " + speed + " faster";
  if (!p.gpu.empty()) title += " on " + p.gpu;
  return redact(title);
}

std::string result_marker(const PullRequestProposal& p, const std::string& head_sha) {
  std::string marker = "<!-- kgate:result=" + result_hash(p) + " kernel=" + p.kernel;
  if (!p.base_rev.empty()) marker += " base=" + p.base_rev;
  if (!head_sha.empty()) marker += " head=" + head_sha;
  return marker + " -->";
}

std::string commands_footer(const PullRequestProposal& p) {
  const std::string k = "`" + p.kernel + "`";
  return "<details><summary>kgate commands</summary>\n\n"
         "Comment on this pull request (people with write access to the repository):\n\n"
         "- `/kgate rebase`: run a new episode on the current `" +
         p.base_branch +
         "` and recreate this branch from it, replacing commits that others added to the "
         "branch.\n"
         "- `/kgate ignore`: close this pull request; kgate proposes nothing for " +
         k + " again until someone comments `/kgate optimize " + p.kernel +
         "`.\n"
         "- `/kgate optimize " +
         p.kernel +
         "`: run a new episode now.\n\n"
         "kgate never updates this branch over commits someone else pushed to it; it says so "
         "in a comment instead.\n\n</details>\n";
}

std::string pull_request_body(const PullRequestProposal& p, const std::string& head_sha) {
  std::string b;
  const std::string speed = format_speedup(p.speedup);
  b += "kgate found a faster version of **`" + p.kernel + "`** (`" + p.source_path + "`): **" +
       speed + "** overall (geometric mean over " + std::to_string(p.shapes.size()) + " shapes)";
  if (!p.gpu.empty()) b += " on **" + p.gpu + "**";
  b +=
      ", correct on every declared shape, measured against `" + p.base_rev.substr(0, 12) + "`.\n\n";

  if (!p.launch_change.empty()) b += "## This changes the launch\n\n" + p.launch_change + "\n\n";

  b += "## Per shape\n\n";
  b += "| shape | phase | before | after | change [95% CI] | max error | verdict |\n";
  b += "|---|---|---:|---:|---:|---:|---|\n";
  for (const ShapeRow& r : p.shapes)
    b += "| " + cell(r.shape) + " | " + cell(r.phase) + " | " + format_seconds(r.before_s) + " | " +
         format_seconds(r.after_s) + " | " + format_change(r.change, r.ci_low, r.ci_high) + " | " +
         format_error(r.max_error) + " | " + cell(r.verdict) + " |\n";
  b += "\n";
  b += mermaid_latency_chart(p.kernel + ": latency per shape, after as % of before", p.shapes);
  b += "\n";

  if (!p.profile_before.empty() || !p.profile_after.empty()) {
    b += "## Profile\n\n";
    if (!p.profile_where.empty())
      b += "Profiled with `kgate profile` on " + p.profile_where + ".\n\n";
    if (!p.profile_comparison.empty()) b += p.profile_comparison + "\n";
    b += "<details><summary>before</summary>\n\n" + fenced(p.profile_before) + "\n</details>\n\n";
    b +=
        "<details open><summary>after</summary>\n\n" + fenced(p.profile_after) + "\n</details>\n\n";
  }
  if (!p.roofline.empty()) b += "## Roofline\n\n" + p.roofline + "\n\n";
  if (!p.in_model.empty()) b += "## In the workload\n\n" + p.in_model + "\n";

  if (!p.iterations.empty()) {
    b += "## How the agent got there\n\n";
    for (size_t i = 0; i < p.iterations.size(); ++i) {
      const IterationNote& it = p.iterations[i];
      // The agent's words are shown, never interpreted (bot/untrusted_text.h).
      b += "<details><summary>Iteration " + std::to_string(i + 1) +
           (it.outcome.empty() ? "" : ": " + neutralize_untrusted_line(it.outcome)) +
           "</summary>\n\n";
      b += "**Plan.** " + neutralize_untrusted(it.plan) + "\n\n**Reflection.** " +
           neutralize_untrusted(it.reflection) + "\n\n</details>\n\n";
    }
  }
  if (!p.reproduce.empty()) {
    b += "## Reproduce\n\n";
    std::string cmds;
    for (const auto& c : p.reproduce) cmds += c + "\n";
    b += fenced(cmds) + "\n";
  }
  if (!p.environment.empty()) {
    b += "## Environment\n\n| | |\n|---|---|\n";
    for (const auto& [k, v] : p.environment) b += "| " + cell(k) + " | " + cell(v) + " |\n";
    b += "\n";
  }
  b += "_Opened by kgate. Closing this pull request tells kgate not to propose this result "
       "again; a new result for `" +
       p.kernel + "` will update or replace it._\n";
  // The commands and the marker survive any shortening.
  const std::string tail =
      "\n" + redact(commands_footer(p)) + "\n" + result_marker(p, head_sha) + "\n";
  b = redact(b);
  if (b.size() + tail.size() > kGitHubBodyLimit) {
    const std::string note = "\n\n_(shortened to fit GitHub's limit)_\n";
    b = utf8_prefix(b, kGitHubBodyLimit - tail.size() - note.size()) + note;
  }
  return b + tail;
}

}  // namespace kgate::bot
