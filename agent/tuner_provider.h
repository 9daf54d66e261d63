#pragma once
// The built-in agent: no model, no network. It hill-climbs over the
// manifest's tunables and a few safe compiler options from the current best,
// one candidate per iteration, ordering moves by the bottleneck class of the
// profile:
//   memory-bound     -> the widest access first (VEC/WIDTH to its largest
//                       value), the most reuse (BATCH_TILE/TILE), then more
//                       work in flight one step at a time (UNROLL, ELEMS,
//                       ACCUMULATORS...), coordinated pairs (work up, BLOCK
//                       down), rows per block, block sizes;
//   register-limited -> less work per thread, narrower accesses, a register cap;
//   launch-bound     -> fewer, larger blocks (BLOCK, ROWS) and more work per thread.
// Settings that improved for this family before (the experience store's
// lessons) come first, then one more step in the direction of the last kept
// change. Deterministic for a seed: ties are broken by a seeded hash. It
// writes its plan and reflection as text, like any agent, with the best's
// bandwidth per shape, and says "STOP:" (naming what bounds the best) when
// nothing is left to try.
#include <memory>

#include "agent/agent_provider.h"

namespace kgate {

std::unique_ptr<AgentProvider> make_tuner_provider(uint64_t seed);

}  // namespace kgate
