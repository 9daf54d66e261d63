#pragma once
// Everything a pull request for an accepted candidate carries. Glue code
// fills it from the agent's episode and the gate's verdict; the bot only
// composes and publishes it.
#include <string>
#include <vector>

namespace kgate::bot {

struct ShapeRow {
  std::string shape;
  std::string phase;    // prefill, decode, edge, ...
  double before_s = 0;  // median latency of the base
  double after_s = 0;   // median latency of the candidate
  double change = 0;    // after/before - 1 (negative is faster)
  double ci_low = 0;    // confidence interval on `change`
  double ci_high = 0;
  double max_error = 0;  // max abs error against the reference
  std::string verdict;   // faster, slower, same, inconclusive
};

struct IterationNote {
  std::string plan;
  std::string reflection;
  std::string outcome;  // "accepted, -12.4%", "compile error", ...
};

// Another file the candidate changes, e.g. kgate.json with new tunable defaults.
struct ProposedFile {
  std::string path;  // repository-relative, '/'-separated
  std::string text;  // the complete new content
};

struct PullRequestProposal {
  std::string kernel;                     // manifest name; the branch is kgate/optimize/<kernel>
  std::string source_path;                // repository-relative path of the kernel's source
  std::string candidate_source;           // the complete new text of that file
  std::vector<ProposedFile> other_files;  // changed alongside (may be empty)
  std::string base_branch;                // e.g. "main": the pull request's base
  std::string base_rev;                   // commit the candidate was measured against
  std::string gpu;                        // "NVIDIA H100 80GB HBM3"
  double speedup = 1.0;                   // geometric mean of before/after over the shapes
  std::vector<ShapeRow> shapes;
  std::string profile_before;  // profile summaries (text or Markdown)
  std::string profile_after;
  // The counters before and after (runner/profile_model/profile_comparison.h, Markdown),
  // and what they were measured on ("shape prefill-2k, NVIDIA H200"); empty
  // when no profile was taken.
  std::string profile_comparison;
  std::string profile_where;
  // The launch the candidate needs, said plainly for people whose own code
  // launches the kernel (Markdown); empty when the launch is unchanged.
  std::string launch_change;
  std::string roofline;  // where the kernel sits against the roofline
  std::string in_model;  // Markdown: validation inside the workload (gate/workload_validation.h)
  std::vector<IterationNote> iterations;
  std::vector<std::string> reproduce;                            // commands, one per line
  std::vector<std::pair<std::string, std::string>> environment;  // GPU, driver, CUDA, clocks, kgate
};

// The branch a kernel's pull request lives on.
std::string branch_for_kernel(const std::string& kernel);
// Identifies the result: kernel, base revision and every file's new text. A closed
// pull request with the same hash is never reopened or proposed again.
std::string result_hash(const PullRequestProposal& proposal);

}  // namespace kgate::bot
