#pragma once
// The text of an optimization pull request: what changed, by how much, on
// which GPU, with the evidence a reviewer needs to trust it and the commands
// to check it themselves. Markers (HTML comments) carry the result hash so a
// closed pull request is never proposed again for the same result.
#include <optional>
#include <string>

#include "bot/pull_request_proposal.h"

namespace kgate::bot {

inline constexpr size_t kGitHubBodyLimit = 65536;

// "kgate: rmsnorm 1.24x faster on NVIDIA H100 80GB HBM3"
std::string pull_request_title(const PullRequestProposal& proposal);

// `chart_url` may be empty (no chart). The body ends with the result marker.
std::string pull_request_body(const PullRequestProposal& proposal, const std::string& chart_url);

// "<!-- kgate:result=<hash> kernel=<kernel> base=<base_rev> -->"
std::string result_marker(const PullRequestProposal& proposal);
// The hash in a body's result marker, if it has one.
std::optional<std::string> result_hash_in(const std::string& body);
// The revision the result was measured against (" base=<rev>" in the marker), if recorded.
std::optional<std::string> result_base_in(const std::string& body);

// "-12.3% [-14.0%, -10.1%]"
std::string format_change(double change, double ci_low, double ci_high);

}  // namespace kgate::bot
