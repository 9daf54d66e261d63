#pragma once
// The likely bottleneck of a profiled launch, named with the numbers that
// support it and what usually helps: the judgement the summary leads with.
// Pure: decided from ProfileData alone (rules in docs/profile.md).
#include <string>
#include <string_view>

#include "runner/profile_model/profile_data.h"

namespace kgate::profile_model {

enum class Bottleneck {
  kMemoryPoorCoalescing,  // memory-bound, many sectors per request
  kMemoryEfficient,       // memory-bound, accesses already coalesced
  kComputeBound,
  kLatencyLowOccupancy,  // neither pipe busy, few warps resident
  kRegisterLimited,      // occupancy capped by registers, or spilling
  kLaunchBound,          // too little work: launch overhead dominates
  kLatencyBound,         // neither pipe busy although warps are resident
  kUnknown,              // not enough numbers to tell
};
std::string_view to_string(Bottleneck b);
// One of the lowercase class names as printed ("memory-bound, poor coalescing").
std::string_view describe(Bottleneck b);

struct Classification {
  Bottleneck bottleneck = Bottleneck::kUnknown;
  std::string evidence;  // one or two sentences with the supporting numbers
  std::string advice;    // what usually helps for this class
};

Classification classify(const ProfileData& p);

}  // namespace kgate::profile_model
