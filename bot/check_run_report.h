#pragma once
// What the gate reports about one commit, in forge-neutral terms. Glue code
// fills it from gate/ results; forges turn it into a check run, a commit
// status, or files under the local state directory.
#include <string>
#include <vector>

namespace kgate::bot {

struct Annotation {
  std::string path;               // relative to the repository root
  int line = 1;                   // 1-based
  int end_line = 0;               // 0: same as line
  std::string level = "failure";  // "notice", "warning" or "failure" (GitHub's names)
  std::string title;              // optional, short
  std::string message;
};

struct CheckRunReport {
  std::string name = "kgate";  // the check's name, stable across runs
  std::string title;           // one line: "rmsnorm: 2 shapes slower (-8.1%)"
  std::string
      conclusion;  // success, failure, neutral, cancelled, skipped, timed_out, action_required
  std::string summary_markdown;  // the gate's table; trimmed to the forge's limit
  std::string details_markdown;  // optional longer text ("text" on GitHub)
  std::vector<Annotation> annotations;
  std::string details_url;  // optional link to logs
};

// The conclusions GitHub accepts for a completed check run.
bool is_valid_conclusion(const std::string& conclusion);

}  // namespace kgate::bot
