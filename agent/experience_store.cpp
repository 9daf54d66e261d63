#include "agent/experience_store.h"

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <ctime>

#include "core/utc_time.h"

namespace kgate {
namespace {

std::string column_text(sqlite3_stmt* s, int i) {
  const unsigned char* t = sqlite3_column_text(s, i);
  return t ? reinterpret_cast<const char*>(t) : "";
}

// A prepared statement finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return rc_ == SQLITE_OK; }
  sqlite3_stmt* get() { return stmt_; }
  void bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.c_str(), -1, SQLITE_TRANSIENT);
  }
  // SQLite stores NaN as NULL, which `speedup REAL NOT NULL` refuses: an
  // unknown speedup (a wrong or crashed candidate) is stored as 0.
  void bind(int i, double v) { sqlite3_bind_double(stmt_, i, std::isfinite(v) ? v : 0.0); }
  void bind(int i, int v) { sqlite3_bind_int(stmt_, i, v); }
  void bind(int i, int64_t v) { sqlite3_bind_int64(stmt_, i, v); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_;
};

constexpr const char* kColumns =
    "id, created_at, kernel, family, backend, bottleneck, change, outcome, speedup, reflection, "
    "episode_id";

Lesson read_row(sqlite3_stmt* s) {
  Lesson l;
  l.id = sqlite3_column_int64(s, 0);
  l.created_at = column_text(s, 1);
  l.kernel = column_text(s, 2);
  l.family = column_text(s, 3);
  l.backend = column_text(s, 4);
  l.bottleneck = column_text(s, 5);
  l.change = column_text(s, 6);
  l.outcome = column_text(s, 7);
  l.speedup = sqlite3_column_double(s, 8);
  l.reflection = column_text(s, 9);
  l.episode_id = column_text(s, 10);
  return l;
}

}  // namespace

Lesson Lesson::from_json(const nlohmann::json& j) {
  Lesson l;
  if (!j.is_object()) return l;
  l.kernel = j.value("kernel", "");
  l.family = j.value("family", "");
  l.backend = j.value("backend", "");
  l.bottleneck = j.value("bottleneck", "");
  l.change = j.value("change", "");
  l.outcome = j.value("outcome", "");
  l.speedup = j.value("speedup", 0.0);
  l.reflection = j.value("reflection", "");
  l.episode_id = j.value("episode_id", "");
  return l;
}

nlohmann::json Lesson::to_json() const {
  return {{"id", id},
          {"created_at", created_at},
          {"kernel", kernel},
          {"family", family},
          {"backend", backend},
          {"bottleneck", bottleneck},
          {"change", change},
          {"outcome", outcome},
          {"speedup", speedup},
          {"reflection", reflection},
          {"episode_id", episode_id}};
}

Result<std::unique_ptr<ExperienceStore>> ExperienceStore::open(
    const std::filesystem::path& db_path) {
  std::error_code ec;
  std::filesystem::create_directories(db_path.parent_path(), ec);
  sqlite3* db = nullptr;
  if (sqlite3_open(db_path.c_str(), &db) != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Error::infrastructure("cannot open the experience store " + db_path.string() + ": " +
                                 why);
  }
  sqlite3_busy_timeout(db, 5000);
  const char* schema =
      "CREATE TABLE IF NOT EXISTS lessons ("
      " id INTEGER PRIMARY KEY AUTOINCREMENT, created_at TEXT NOT NULL, kernel TEXT NOT NULL,"
      " family TEXT NOT NULL, backend TEXT NOT NULL, bottleneck TEXT NOT NULL, change TEXT NOT "
      "NULL,"
      " outcome TEXT NOT NULL, speedup REAL NOT NULL, reflection TEXT NOT NULL, episode_id TEXT "
      "NOT NULL);"
      "CREATE INDEX IF NOT EXISTS lessons_family ON lessons(family);";
  char* err = nullptr;
  if (sqlite3_exec(db, schema, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string why = err ? err : "unknown error";
    sqlite3_free(err);
    sqlite3_close(db);
    return Error::infrastructure("cannot create the experience store in " + db_path.string() +
                                 ": " + why);
  }
  return std::unique_ptr<ExperienceStore>(new ExperienceStore(db));
}

ExperienceStore::~ExperienceStore() {
  sqlite3_close(db_);
}

Status ExperienceStore::add(const Lesson& lesson) {
  Statement s(db_,
              "INSERT INTO lessons (created_at, kernel, family, backend, bottleneck, change, "
              "outcome, speedup,"
              " reflection, episode_id) VALUES (?,?,?,?,?,?,?,?,?,?)");
  if (!s.ok())
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  s.bind(1, lesson.created_at.empty() ? utc_now_iso8601() : lesson.created_at);
  s.bind(2, lesson.kernel);
  s.bind(3, lesson.family);
  s.bind(4, lesson.backend);
  s.bind(5, lesson.bottleneck);
  s.bind(6, lesson.change);
  s.bind(7, lesson.outcome);
  s.bind(8, lesson.speedup);
  s.bind(9, lesson.reflection);
  s.bind(10, lesson.episode_id);
  if (sqlite3_step(s.get()) != SQLITE_DONE)
    return Error::infrastructure(std::string("experience store: cannot add a lesson: ") +
                                 sqlite3_errmsg(db_));
  return {};
}

Result<std::vector<Lesson>> ExperienceStore::relevant(const std::string& family,
                                                      const std::string& backend,
                                                      const std::string& bottleneck, int limit) {
  // Score: improvements, then warnings (wrong/slower), then the rest; a
  // matching bottleneck and backend add weight; larger speedups and newer
  // rows win ties.
  std::string sql =
      std::string("SELECT ") + kColumns +
      " FROM lessons WHERE family = ?1 AND (?5 < 0 OR id <= ?5 OR kernel = ?6) ORDER BY"
      " (CASE outcome WHEN 'improved' THEN 4 WHEN 'wrong' THEN 2 WHEN 'slower' THEN 2 ELSE 0 END"
      "  + (bottleneck = ?2) + (backend = ?3)) DESC,"
      " speedup DESC, id DESC LIMIT ?4";
  Statement s(db_, sql.c_str());
  if (!s.ok())
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  s.bind(1, family);
  s.bind(2, bottleneck);
  s.bind(3, backend);
  s.bind(4, limit);
  s.bind(5, read_up_to_);
  s.bind(6, own_kernel_);
  std::vector<Lesson> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back(read_row(s.get()));
  if (rc != SQLITE_DONE)
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  return out;
}

Result<std::vector<Lesson>> ExperienceStore::list(const std::string& family, int limit) {
  std::string sql = std::string("SELECT ") + kColumns +
                    " FROM lessons WHERE (?1 = '' OR family = ?1)"
                    " ORDER BY id DESC LIMIT ?2";
  Statement s(db_, sql.c_str());
  if (!s.ok())
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  s.bind(1, family);
  s.bind(2, limit);
  std::vector<Lesson> out;
  int rc;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW) out.push_back(read_row(s.get()));
  if (rc != SQLITE_DONE)
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  return out;
}

Result<int64_t> ExperienceStore::last_id() {
  Statement s(db_, "SELECT COALESCE(MAX(id), 0) FROM lessons");
  if (!s.ok() || sqlite3_step(s.get()) != SQLITE_ROW)
    return Error::infrastructure(std::string("experience store: ") + sqlite3_errmsg(db_));
  return static_cast<int64_t>(sqlite3_column_int64(s.get(), 0));
}

void ExperienceStore::read_up_to(int64_t last_id, std::string kernel) {
  read_up_to_ = last_id;
  own_kernel_ = std::move(kernel);
}

}  // namespace kgate
