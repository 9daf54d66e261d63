#pragma once
// Lessons from past iterations, kept in SQLite under the state directory so
// the next episode on a kernel of the same family starts from what was
// learned. Invariant: one row per reflected iteration; rows are never updated.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

struct sqlite3;

namespace kgate {

struct Lesson {
  int64_t id = 0;
  std::string created_at;  // UTC, ISO 8601
  std::string kernel, family, backend;
  std::string bottleneck;  // class: "memory-bound", "register-limited", "launch-bound",
                           // "compute-bound", "unknown"
  std::string change;      // what the candidate changed ("ACCUMULATORS=8", or the agent's plan)
  std::string
      outcome;  // "improved", "no-gain", "slower", "wrong", "compile-error", "refused", "no-code"
  double speedup = 0;  // measured best / candidate (geomean), 0 when not timed
  std::string reflection;
  std::string episode_id;

  nlohmann::json to_json() const;
  // A lesson to_json wrote (a missing field is its default).
  static Lesson from_json(const nlohmann::json& j);
};

class ExperienceStore {
 public:
  // Opens (creating if needed) `<state_dir>/experience.sqlite`.
  static Result<std::unique_ptr<ExperienceStore>> open(const std::filesystem::path& db_path);
  ~ExperienceStore();
  ExperienceStore(const ExperienceStore&) = delete;
  ExperienceStore& operator=(const ExperienceStore&) = delete;

  Status add(const Lesson& lesson);
  // The most relevant lessons for a kernel of `family`: improvements first
  // (largest speedup), then failures that warn (wrong results, slowdowns);
  // a matching bottleneck class and backend rank higher; newest breaks ties.
  Result<std::vector<Lesson>> relevant(const std::string& family, const std::string& backend,
                                       const std::string& bottleneck, int limit);
  // Every lesson, newest first; `family` empty for all.
  Result<std::vector<Lesson>> list(const std::string& family, int limit);

  // The id of the newest lesson (0: none): where a sweep starts.
  Result<int64_t> last_id();
  // From now on relevant() reads only lessons up to `last_id`, and those of
  // `kernel` (a sweep's episode of it: its own iterations). A sweep's
  // episodes then learn the same whichever of them ran first, or at the
  // same time on another GPU.
  void read_up_to(int64_t last_id, std::string kernel);

 private:
  explicit ExperienceStore(sqlite3* db) : db_(db) {}
  sqlite3* db_;
  int64_t read_up_to_ = -1;  // -1: every lesson
  std::string own_kernel_;
};

}  // namespace kgate
