#pragma once
// Which side goes first and which input copy both sides read, round by
// round, in the interleaved A/B timing loop. The design removes the ways a
// schedule can favour a side (docs/gate.md, "Why A/A is same"):
//   - both sides of a round read the same copy (the same device buffers);
//   - every copy is read as often with head first as with base first, so a
//     copy that is faster (its data, its placement) helps both orders alike;
//   - the copy changes every round (when there are several), so the first
//     sample of a round never follows a sample on the same buffers while the
//     second always does: which sample comes first is balanced between the
//     sides and so is what ran just before it.
// A period is 2 * copies rounds; the balance holds over every whole period.
#include <cstddef>
#include <cstdint>

namespace kgate {

struct RoundPlan {
  bool head_first = true;
  int copy = 0;
};

// The plan of round `round` (0-based) with `copies` input copies (>= 1).
RoundPlan round_plan(int round, int copies);

// How many input copies a measurement rotates, each of `per_copy_bytes` (its
// buffers and the pristine copies of its in/out ones) on a device with
// `l2_bytes` of cache (<= 0: unknown, 8 MiB assumed): enough that together
// they exceed twice the cache, at most 16, and one when that would take more
// than 4 GiB. A small kernel still gets many: where its buffers lie moves a
// latency-bound one (a one-warp candle rmsnorm row's head/base spread over 8%
// across placements with 4 copies and 3.6% with 16; bench/candle/README.md).
// At most half of `max_samples`, so that a whole period fits in the rounds.
int input_copies(size_t per_copy_bytes, int64_t l2_bytes, int max_samples);

// Rounds in one balanced period.
inline int schedule_period(int copies) {
  return 2 * (copies < 1 ? 1 : copies);
}

}  // namespace kgate
