// The A/B timing schedule is balanced by construction (runner/timing_schedule.h).
// The schedule it replaced (copy = round % copies, head first on even rounds)
// fails the first test for 2 and 4 copies: every copy was always read with
// the same side first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "runner/timing_schedule.h"

namespace kgate {
namespace {

TEST(TimingSchedule, EveryCopyIsReadAsOftenWithEitherSideFirst) {
  for (int copies = 1; copies <= 16; ++copies) {
    std::map<int, int> head_first, base_first;
    for (int round = 0; round < 3 * schedule_period(copies); ++round) {
      RoundPlan p = round_plan(round, copies);
      ASSERT_GE(p.copy, 0);
      ASSERT_LT(p.copy, copies);
      ++(p.head_first ? head_first : base_first)[p.copy];
    }
    for (int c = 0; c < copies; ++c)
      EXPECT_EQ(head_first[c], base_first[c]) << copies << " copies, copy " << c;
  }
}

TEST(TimingSchedule, TheCopyChangesEveryRound) {
  // So the first sample of a round never follows a sample on its own buffers
  // while the second always does, whichever side goes first.
  for (int copies = 2; copies <= 4; ++copies)
    for (int round = 1; round < 4 * schedule_period(copies); ++round)
      EXPECT_NE(round_plan(round, copies).copy, round_plan(round - 1, copies).copy)
          << copies << " copies, round " << round;
}

TEST(TimingSchedule, WhatRanBeforeTheFirstSampleIsBalancedBetweenSides) {
  // (side first in round r, side second in round r - 1): a side that follows
  // itself must do so as often as the other follows itself.
  for (int copies = 1; copies <= 4; ++copies) {
    int period = schedule_period(copies);
    std::map<std::pair<bool, bool>, int> pairs;
    for (int round = period; round < 2 * period; ++round) {
      bool first = round_plan(round, copies).head_first;
      bool before = !round_plan(round - 1, copies).head_first;  // the previous round's second
      ++pairs[{first, before}];
    }
    int head_after_head = pairs[{true, true}], base_after_base = pairs[{false, false}];
    int head_after_base = pairs[{true, false}], base_after_head = pairs[{false, true}];
    EXPECT_EQ(head_after_head, base_after_base) << copies << " copies";
    EXPECT_EQ(head_after_base, base_after_head) << copies << " copies";
  }
}

TEST(TimingSchedule, HeadGoesFirstInHalfOfEveryPeriod) {
  for (int copies = 1; copies <= 4; ++copies) {
    int first = 0;
    for (int round = 0; round < schedule_period(copies); ++round)
      first += round_plan(round, copies).head_first;
    EXPECT_EQ(first, copies) << copies << " copies";
  }
}

TEST(TimingSchedule, TheRoundAfterALookStartsWithEitherSideAlike) {
  // The adaptive rule looks every 5 rounds (timing_loop.cpp); its pause
  // precedes the next round's first sample, which must not favour a side.
  for (int copies = 1; copies <= 16; ++copies) {
    int head_minus_base = 0, most = 0;
    for (int round = 5; round < 5000; round += 5) {
      head_minus_base += round_plan(round, copies).head_first ? 1 : -1;
      most = std::max(most, std::abs(head_minus_base));
    }
    EXPECT_LE(most, 6) << copies << " copies";
  }
}

TEST(TimingSchedule, SmallKernelsRotateSixteenCopies) {
  const int64_t l2 = int64_t{60} << 20;  // an H200's
  EXPECT_EQ(input_copies(4 << 10, l2, 1000000), 16) << "a one-row decode kernel";
  EXPECT_EQ(input_copies(size_t{10} << 20, l2, 1000000), 13) << "2 * 60 / 10 + 1";
  EXPECT_EQ(input_copies(size_t{200} << 20, l2, 1000000), 1) << "larger than twice the cache";
  EXPECT_EQ(input_copies(0, l2, 1000000), 16) << "no buffers at all";
}

TEST(TimingSchedule, AWholePeriodFitsInTheSamples) {
  const int64_t l2 = int64_t{60} << 20;
  EXPECT_EQ(input_copies(4 << 10, l2, 30), 15);
  EXPECT_LE(schedule_period(input_copies(4 << 10, l2, 30)), 30);
  EXPECT_EQ(input_copies(4 << 10, l2, 1), 1);
  EXPECT_EQ(input_copies(4 << 10, l2, 0), 1);
}

TEST(TimingSchedule, CopiesStayWithinFourGibibytes) {
  // 2 * cache / per_copy + 1 = 3 copies of 2 GiB would be 6 GiB: one copy.
  EXPECT_EQ(input_copies(size_t{2} << 30, int64_t{3} << 30, 1000000), 1);
  EXPECT_EQ(input_copies(size_t{1} << 30, int64_t{1} << 30, 1000000), 3);
}

TEST(TimingSchedule, AnUnknownCacheCountsAsEightMebibytes) {
  EXPECT_EQ(input_copies(size_t{4} << 20, 0, 1000000), 5);
}

}  // namespace
}  // namespace kgate
