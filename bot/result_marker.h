#pragma once
// Reading the hidden marker at the end of a kgate pull request's body:
//   <!-- kgate:result=<hash> kernel=<name> base=<sha> head=<sha> -->
// (written by pull_request_body.h). It says which result the pull request
// proposes (a closed one with the same hash is never proposed again), which
// kernel it is for (the service routes `/kgate rebase|ignore` by it), what it
// was measured against and which commit kgate last pushed. Only the standard
// library: the router and its fuzz target read it too.
#include <optional>
#include <string>

namespace kgate::bot {

// The hash in a body's result marker, if it has one.
std::optional<std::string> result_hash_in(const std::string& body);
// The revision the result was measured against (" base=<rev>" in the marker), if recorded.
std::optional<std::string> result_base_in(const std::string& body);
// The commit kgate last pushed to the branch (" head=<sha>"), if recorded.
std::optional<std::string> result_head_in(const std::string& body);
// The kernel the pull request is for (" kernel=<name>"), if the body has a marker.
std::optional<std::string> result_kernel_in(const std::string& body);

}  // namespace kgate::bot
