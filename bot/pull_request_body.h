#pragma once
// The text of an optimization pull request: what changed, by how much, on
// which GPU, with the evidence a reviewer needs to trust it and the commands
// to check it themselves. Markers (HTML comments) carry the result hash so a
// closed pull request is never proposed again for the same result.
#include <optional>
#include <string>

#include "bot/pull_request_proposal.h"
#include "bot/result_marker.h"

namespace kgate::bot {

inline constexpr size_t kGitHubBodyLimit = 65536;

// "kgate: rmsnorm 1.24x faster on NVIDIA H100 80GB HBM3"
std::string pull_request_title(const PullRequestProposal& proposal);

// The body ends with the commands footer and the result marker; `head_sha`
// is the commit kgate pushes to the branch (empty: not recorded).
std::string pull_request_body(const PullRequestProposal& proposal, const std::string& head_sha);

// "<!-- kgate:result=<hash> kernel=<kernel> base=<base_rev> head=<head_sha> -->"
std::string result_marker(const PullRequestProposal& proposal, const std::string& head_sha = "");
// The commands people can give kgate on its pull request, as a collapsed list.
std::string commands_footer(const PullRequestProposal& proposal);
// Reading the marker back: bot/result_marker.h.

// "-12.3% [-14.0%, -10.1%]"
std::string format_change(double change, double ci_low, double ci_high);

}  // namespace kgate::bot
