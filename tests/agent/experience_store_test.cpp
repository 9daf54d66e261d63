// The experience store on a real SQLite file.
#include <gtest/gtest.h>

#include "agent/experience_store.h"
#include "support/test_support.h"

namespace kgate {
namespace {

Lesson lesson(const std::string& family, const std::string& outcome, double speedup,
              const std::string& change, const std::string& bottleneck = "memory-bound") {
  Lesson l;
  l.kernel = "k";
  l.family = family;
  l.backend = "host";
  l.bottleneck = bottleneck;
  l.change = change;
  l.outcome = outcome;
  l.speedup = speedup;
  l.reflection = "because";
  l.episode_id = "e1";
  return l;
}

TEST(ExperienceStore, RelevantLessonsPutImprovementsFirstAndStayInTheFamily) {
  testing::TempDir dir;
  {
    auto store = ExperienceStore::open(dir / "state" / "experience.sqlite");
    ASSERT_TRUE(store.ok()) << store.error().message;
    ASSERT_TRUE((*store)->add(lesson("norm", "no-gain", 1.0, "A=2")).ok());
    ASSERT_TRUE((*store)->add(lesson("norm", "improved", 1.5, "A=4")).ok());
    ASSERT_TRUE((*store)->add(lesson("norm", "improved", 3.0, "A=8")).ok());
    ASSERT_TRUE((*store)->add(lesson("norm", "wrong", 0, "A=16")).ok());
    ASSERT_TRUE((*store)->add(lesson("elementwise", "improved", 9.0, "U=8")).ok());
  }
  // Reopened: the lessons persist.
  auto store = ExperienceStore::open(dir / "state" / "experience.sqlite");
  ASSERT_TRUE(store.ok());
  auto r = (*store)->relevant("norm", "host", "memory-bound", 3);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->size(), 3u);
  EXPECT_EQ((*r)[0].change, "A=8");
  EXPECT_EQ((*r)[1].change, "A=4");
  EXPECT_EQ((*r)[2].outcome, "wrong");
  auto all = (*store)->list("", 10);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 5u);
  EXPECT_EQ(all->front().family, "elementwise");  // newest first
  EXPECT_FALSE(all->front().created_at.empty());
}

TEST(ExperienceStore, UnwritablePathIsAnError) {
  auto store = ExperienceStore::open("/proc/kgate-no/experience.sqlite");
  EXPECT_FALSE(store.ok());
}

// A sweep's episodes read the lessons stored before it began and their own
// kernel's: not those another episode of the sweep stored meanwhile (on
// another GPU, or earlier in the order), so the sweep learns the same on 1 or 8 GPUs.
TEST(ExperienceStore, ASweepsEpisodesReadOnlyLessonsFromBeforeItAndTheirOwn) {
  testing::TempDir dir;
  auto store = ExperienceStore::open(dir / "experience.sqlite");
  ASSERT_TRUE(store.ok());
  EXPECT_EQ(*(*store)->last_id(), 0);
  ASSERT_TRUE((*store)->add(lesson("norm", "improved", 2.0, "before the sweep")).ok());
  const int64_t horizon = *(*store)->last_id();
  EXPECT_EQ(horizon, 1);
  Lesson other = lesson("norm", "improved", 5.0, "another kernel of the sweep");
  other.kernel = "other";
  Lesson own = lesson("norm", "improved", 3.0, "this kernel's own iteration");
  own.kernel = "mine";
  ASSERT_TRUE((*store)->add(other).ok());
  ASSERT_TRUE((*store)->add(own).ok());

  auto everything = (*store)->relevant("norm", "host", "memory-bound", 10);
  ASSERT_TRUE(everything.ok());
  EXPECT_EQ(everything->size(), 3u);
  (*store)->read_up_to(horizon, "mine");
  auto seen = (*store)->relevant("norm", "host", "memory-bound", 10);
  ASSERT_TRUE(seen.ok());
  std::vector<std::string> changes;
  for (const Lesson& l : *seen) changes.push_back(l.change);
  EXPECT_EQ(changes, (std::vector<std::string>{"this kernel's own iteration", "before the sweep"}));
}

}  // namespace
}  // namespace kgate
