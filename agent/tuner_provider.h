#pragma once
// The built-in agent: no model, no network. It hill-climbs over the
// manifest's tunables and a few safe compiler options from the current best,
// ordering moves by the bottleneck class of the profile:
//   memory-bound     -> more work per thread first (VEC, UNROLL, ACCUMULATORS,
//                       ELEMS...), then larger blocks;
//   register-limited -> smaller unroll/vector widths, a register cap;
//   launch-bound     -> fewer, larger blocks and more elements per thread;
// settings that improved for this family before (the experience store's
// lessons) come first. Deterministic for a seed: ties are broken by a seeded
// hash. It writes its plan and reflection as text, like any agent, and says
// "STOP:" when nothing is left to try.
#include <memory>

#include "agent/agent_provider.h"

namespace kgate {

std::unique_ptr<AgentProvider> make_tuner_provider(uint64_t seed);

}  // namespace kgate
