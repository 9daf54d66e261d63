#include "bot/pull_request_proposal.h"

#include "core/hash.h"

namespace kgate::bot {

std::string branch_for_kernel(const std::string& kernel) {
  return "kgate/optimize/" + kernel;
}

std::string result_hash(const PullRequestProposal& p) {
  std::string key = p.kernel;
  key += '\0';
  key += p.base_rev;
  key += '\0';
  key += p.source_path;
  key += '\0';
  key += sha256_hex(p.candidate_source);
  for (const ProposedFile& f : p.other_files) {
    key += '\0';
    key += f.path;
    key += '\0';
    key += sha256_hex(f.text);
  }
  return sha256_hex(key).substr(0, 16);
}

}  // namespace kgate::bot
