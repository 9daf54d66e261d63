#include "runner/timing_schedule.h"

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

}  // namespace kgate
