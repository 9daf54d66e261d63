#pragma once
// Writes a tuning result's tunable values into the kernel source's own
// defaults, so merging the pull request changes what every build of the
// source runs, not only kgate's builds (which pass the manifest's defaults
// as -D). A default is the conventional guarded define:
//
//   #ifndef VEC  // halves per access (tunable)
//   #define VEC 1
//   #endif
//
// Only that pattern is edited; the rest of the text stays byte for byte.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace kgate::bot {

struct SourceDefaultsEdit {
  std::string text;                 // the edited source
  std::vector<std::string> set;     // tunables whose default was rewritten
  std::vector<std::string> absent;  // tunables with no guarded define in the source
};

// `values`: tunable name -> integer (or string) value, as in a proposal.
SourceDefaultsEdit set_source_defaults(const std::string& source,
                                       const std::map<std::string, nlohmann::json>& values);

}  // namespace kgate::bot
