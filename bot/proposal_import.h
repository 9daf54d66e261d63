#pragma once
// Turns an episode's proposal file (agent/proposal.h, `.kgate/proposals/
// <kernel>.json`, documented in docs/agent.md) into the pull request the bot
// publishes: the files to change against the base (the kernel's source and,
// for new tunable defaults or flags, kgate.json), the per-shape evidence, the
// profile numbers that moved, the roofline position, each iteration's plan
// and reflection, the commands to reproduce and the environment.
//
// The proposal file is the hand-off: it stays where it is whatever happens
// here, so a failed publication can be retried from it.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bot/pull_request_proposal.h"
#include "core/status.h"

namespace kgate::bot {

struct ProposalImportOptions {
  std::filesystem::path repo_dir = ".";  // the git clone (any folder inside it)
  std::filesystem::path manifest_path;   // kgate.json; empty: the proposal's "manifest"
  std::string base_branch;               // empty: the branch the clone has checked out
  // The commit the result was measured on, which the branch is written on
  // top of (a CI job that checked out a commit); empty: base_branch's tip.
  std::string base_rev;
  // Bytes per second the device really reaches (a measured copy), for the
  // roofline section; 0 when none was measured on this GPU.
  double bandwidth_ceiling = 0;
};

Result<nlohmann::json> read_proposal_file(const std::filesystem::path& file);

Result<PullRequestProposal> import_proposal(const nlohmann::json& proposal,
                                            const ProposalImportOptions& options);

}  // namespace kgate::bot
