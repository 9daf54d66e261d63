#pragma once
// Change points in a history of medians (baseline drift): binary
// segmentation with a CUSUM-type statistic on log medians, scaled by a robust
// noise estimate (MAD of successive differences), so one outlier entry is
// not a drift and a level shift that persists is.
#include <string>
#include <vector>

namespace kgate {

struct DriftOptions {
  double threshold = 4.0;      // standardised mean-shift statistic needed for a change point
  double min_shift = 0.02;     // and at least this relative change of level
  int min_segment = 2;         // entries on each side
  double noise_floor = 0.002;  // smallest noise (log units) assumed: timers are not perfect
};

struct ChangePoint {
  int index = 0;                 // first entry of the new level
  double before = 0, after = 0;  // median level of the segments either side
  double ratio = 1;              // after / before
  double statistic = 0;
};

// Change points, by index. `series` are positive (medians in seconds).
std::vector<ChangePoint> find_change_points(const std::vector<double>& series,
                                            const DriftOptions& options = {});

}  // namespace kgate
