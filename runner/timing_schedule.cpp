#include "runner/timing_schedule.h"

#include <algorithm>

namespace kgate {

RoundPlan round_plan(int round, int copies) {
  if (copies < 1) copies = 1;
  RoundPlan p;
  p.copy = round % copies;
  // With an odd number of copies, plain alternation already gives every
  // copy both orders within 2 * copies rounds; with an even number it would
  // pin each copy to one order, so the order flips every `copies` rounds.
  int flip = copies % 2 == 0 ? round / copies : 0;
  p.head_first = (round + flip) % 2 == 0;
  return p;
}

int input_copies(size_t per_copy_bytes, int64_t l2_bytes, int max_samples) {
  const size_t cache = l2_bytes > 0 ? static_cast<size_t>(l2_bytes) : (size_t{8} << 20);
  const size_t per_copy = std::max<size_t>(per_copy_bytes, 1);
  const size_t most = std::clamp<size_t>(static_cast<size_t>(std::max(max_samples, 0)) / 2, 1, 16);
  const size_t copies = std::clamp<size_t>(2 * cache / per_copy + 1, 1, most);
  return per_copy * copies > (size_t{4} << 30) ? 1 : static_cast<int>(copies);
}

}  // namespace kgate
