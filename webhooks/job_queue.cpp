#include "webhooks/job_queue.h"

#include <chrono>

namespace kgate::webhooks {
namespace {

const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS deliveries(
  id TEXT PRIMARY KEY, event TEXT NOT NULL, action TEXT, received_at REAL NOT NULL,
  outcome TEXT NOT NULL, jobs INTEGER NOT NULL, body BLOB);
CREATE TABLE IF NOT EXISTS jobs(
  id INTEGER PRIMARY KEY AUTOINCREMENT, delivery TEXT NOT NULL, kind TEXT NOT NULL,
  spec TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  not_before REAL NOT NULL DEFAULT 0, created_at REAL NOT NULL, started_at REAL,
  finished_at REAL, worker INTEGER, last_error TEXT, outcome TEXT);
CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs(state, not_before, id);
CREATE TABLE IF NOT EXISTS pulls(
  repository TEXT NOT NULL, number INTEGER NOT NULL, head_sha TEXT NOT NULL,
  base_sha TEXT NOT NULL, trusted INTEGER NOT NULL, updated_at REAL NOT NULL,
  PRIMARY KEY(repository, number));
CREATE TABLE IF NOT EXISTS approvals(
  repository TEXT NOT NULL, head_sha TEXT NOT NULL, pull_number INTEGER, approved_by TEXT,
  approved_at REAL NOT NULL, PRIMARY KEY(repository, head_sha));
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notices(
  id INTEGER PRIMARY KEY AUTOINCREMENT, notice TEXT NOT NULL, sent INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL);
)sql";

// A prepared statement, finalized on scope exit.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  bool ok() const { return stmt_ != nullptr; }
  Statement& bind(int i, const std::string& v) {
    sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind_blob(int i, std::string_view v) {
    sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_STATIC);
    return *this;
  }
  Statement& bind(int i, int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  int step() { return stmt_ ? sqlite3_step(stmt_) : SQLITE_ERROR; }
  // Runs a statement that returns no rows.
  Status run(const char* what) {
    int rc = step();
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
      return Error::infrastructure(std::string("job queue: ") + what + ": " + sqlite3_errmsg(db_));
    return {};
  }
  std::string text(int col) {
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    return t ? reinterpret_cast<const char*>(t) : "";
  }
  int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }
  double real(int col) { return sqlite3_column_double(stmt_, col); }
  bool null(int col) { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

std::string notice_json(const Notice& n) {
  return nlohmann::json{{"kind", n.kind},
                        {"repository", n.repository},
                        {"pull_number", n.pull_number},
                        {"head_sha", n.head_sha},
                        {"message", n.message}}
      .dump();
}

Result<StoredJob> read_job(Statement& s) {
  StoredJob job;
  job.id = s.integer(0);
  job.delivery = s.text(1);
  auto spec = nlohmann::json::parse(s.text(2), nullptr, false);
  auto parsed = JobSpec::from_json(spec);
  if (!parsed.ok()) return parsed.error().with_context("job " + std::to_string(job.id));
  job.spec = *parsed;
  job.state = s.text(3);
  job.attempts = static_cast<int>(s.integer(4));
  job.last_error = s.text(5);
  job.outcome = s.text(6);
  return job;
}

}  // namespace

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Result<std::unique_ptr<JobQueue>> JobQueue::open(const std::filesystem::path& file,
                                                 Durability durability) {
  std::error_code ec;
  std::filesystem::create_directories(file.parent_path(), ec);
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return Error::infrastructure("cannot open the job queue " + file.string() + ": " + message);
  }
  std::unique_ptr<JobQueue> queue(new JobQueue(db));
  sqlite3_busy_timeout(db, 5000);  // other readers (tests, sqlite3 CLI) may hold it briefly
  KGATE_RETURN_IF_ERROR(queue->exec("PRAGMA journal_mode=WAL"));
  KGATE_RETURN_IF_ERROR(queue->exec(durability == Durability::kFull ? "PRAGMA synchronous=FULL"
                                                                    : "PRAGMA synchronous=NORMAL"));
  KGATE_RETURN_IF_ERROR(queue->exec(kSchema));
  {
    Statement created(db, "INSERT OR IGNORE INTO meta(key, value) VALUES('created_at', ?)");
    created.bind(1, std::to_string(unix_now()));
    KGATE_RETURN_IF_ERROR(created.run("recording when the queue was created"));
  }
  KGATE_RETURN_IF_ERROR(queue->exec("PRAGMA wal_autocheckpoint=0"));
  queue->checkpointer_ = std::thread([q = queue.get(), file] { q->checkpoint_loop(file); });
  return queue;
}

void JobQueue::checkpoint_loop(std::filesystem::path file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(db);
    db = nullptr;
  }
  std::unique_lock lock(stop_mutex_);
  while (!stopping_) {
    stop_.wait_for(lock, std::chrono::milliseconds(500));
    if (!db) {
      // Without a second connection, checkpoint on the main one (under its lock).
      std::lock_guard queue_lock(mutex_);
      sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
      continue;
    }
    lock.unlock();
    // PASSIVE never blocks writers; a WAL past 64 MB is truncated once readers allow.
    int log_frames = 0;
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &log_frames, nullptr);
    if (log_frames > 16384)
      sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, nullptr, nullptr);
    lock.lock();
  }
  if (db) sqlite3_close(db);
}

JobQueue::~JobQueue() {
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_.notify_all();
  if (checkpointer_.joinable()) checkpointer_.join();
  sqlite3_close(db_);
}

Status JobQueue::exec(const char* sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &message) != SQLITE_OK) {
    std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    return Error::infrastructure("job queue: " + text);
  }
  return {};
}

Status JobQueue::accept_batch(const std::vector<const IncomingDelivery*>& deliveries,
                              const RouteFn& router,
                              std::vector<std::pair<DeliveryOutcome, Routing>>& results) {
  std::lock_guard lock(mutex_);
  results.assign(deliveries.size(), {DeliveryOutcome::kDuplicate, Routing{}});
  KGATE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  double now = unix_now();
  RoutingContext context;
  context.known_pull = [&](const std::string& repo, int64_t number) -> std::optional<PullState> {
    Statement s(db_,
                "SELECT head_sha, base_sha, trusted FROM pulls WHERE repository=? AND number=?");
    s.bind(1, repo).bind(2, number);
    if (s.step() != SQLITE_ROW) return std::nullopt;
    return PullState{repo, number, s.text(0), s.text(1), s.integer(2) != 0};
  };
  context.is_approved = [&](const std::string& repo, const std::string& sha) {
    Statement s(db_, "SELECT 1 FROM approvals WHERE repository=? AND head_sha=?");
    s.bind(1, repo).bind(2, sha);
    return s.step() == SQLITE_ROW;
  };
  for (size_t i = 0; i < deliveries.size(); ++i) {
    const IncomingDelivery& d = *deliveries[i];
    {
      Statement seen(db_, "SELECT 1 FROM deliveries WHERE id=?");
      seen.bind(1, d.id);
      if (seen.step() == SQLITE_ROW) continue;  // kDuplicate
    }
    // A failure rolls back the whole batch: each of its deliveries is then
    // answered with an error, so GitHub reports it and it can be redelivered.
    Status stored = [&]() -> Status {
      Routing routing = router(d, context);
      Statement insert(
          db_,
          "INSERT INTO deliveries(id, event, action, received_at, outcome, jobs, body) "
          "VALUES(?,?,?,?,?,?,?)");
      insert.bind(1, d.id).bind(2, d.event).bind(3, d.action).bind(4, now);
      insert.bind(5, std::string(routing.jobs.empty() ? "ignored" : "queued"));
      insert.bind(6, static_cast<int64_t>(routing.jobs.size())).bind_blob(7, d.body);
      KGATE_RETURN_IF_ERROR(insert.run("storing a delivery"));
      for (const JobSpec& job : routing.jobs) {
        Statement s(db_,
                    "INSERT INTO jobs(delivery, kind, spec, state, created_at) "
                    "VALUES(?,?,?,'queued',?)");
        s.bind(1, d.id).bind(2, std::string(to_string(job.kind))).bind(3, job.to_json().dump());
        s.bind(4, now);
        KGATE_RETURN_IF_ERROR(s.run("queueing a job"));
      }
      if (routing.pull_update) {
        const PullState& p = *routing.pull_update;
        Statement s(
            db_,
            "INSERT INTO pulls(repository, number, head_sha, base_sha, trusted, updated_at) "
            "VALUES(?,?,?,?,?,?) ON CONFLICT(repository, number) DO UPDATE SET "
            "head_sha=excluded.head_sha, base_sha=excluded.base_sha, "
            "trusted=excluded.trusted, updated_at=excluded.updated_at");
        s.bind(1, p.repository).bind(2, p.number).bind(3, p.head_sha).bind(4, p.base_sha);
        s.bind(5, static_cast<int64_t>(p.trusted)).bind(6, now);
        KGATE_RETURN_IF_ERROR(s.run("recording a pull request"));
      }
      for (const Approval& a : routing.approvals) {
        Statement s(db_,
                    "INSERT OR IGNORE INTO approvals(repository, head_sha, pull_number, "
                    "approved_by, approved_at) VALUES(?,?,?,?,?)");
        s.bind(1, a.repository).bind(2, a.head_sha).bind(3, a.pull_number).bind(4, a.by);
        s.bind(5, now);
        KGATE_RETURN_IF_ERROR(s.run("recording an approval"));
      }
      for (const Notice& n : routing.notices) {
        Statement s(db_, "INSERT INTO notices(notice, created_at) VALUES(?,?)");
        s.bind(1, notice_json(n)).bind(2, now);
        KGATE_RETURN_IF_ERROR(s.run("recording a notice"));
      }
      results[i] = {routing.jobs.empty() ? DeliveryOutcome::kIgnored : DeliveryOutcome::kQueued,
                    std::move(routing)};
      return {};
    }();
    if (!stored.ok()) {
      (void)exec("ROLLBACK");
      return stored;
    }
  }
  Status committed = exec("COMMIT");
  if (!committed.ok()) (void)exec("ROLLBACK");
  return committed;
}

Result<int> JobQueue::recover() {
  std::lock_guard lock(mutex_);
  KGATE_RETURN_IF_ERROR(
      exec("UPDATE jobs SET state='queued', attempts=max(attempts-1, 0), worker=NULL "
           "WHERE state='running'"));
  return sqlite3_changes(db_);
}

Result<std::optional<StoredJob>> JobQueue::claim(int worker, double now) {
  std::lock_guard lock(mutex_);
  KGATE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  std::optional<StoredJob> claimed;
  Statement s(db_,
              "SELECT id, delivery, spec, state, attempts, last_error, outcome FROM jobs "
              "WHERE state='queued' AND not_before<=? ORDER BY id LIMIT 1");
  s.bind(1, now);
  if (s.step() == SQLITE_ROW) {
    auto job = read_job(s);
    if (!job.ok()) {
      // A job this version cannot read is failed, not retried forever.
      Statement f(db_, "UPDATE jobs SET state='failed', last_error=?, finished_at=? WHERE id=?");
      f.bind(1, job.error().message).bind(2, now).bind(3, s.integer(0));
      (void)f.run("failing an unreadable job");
    } else {
      claimed = *job;
      Statement u(db_,
                  "UPDATE jobs SET state='running', attempts=attempts+1, started_at=?, worker=? "
                  "WHERE id=?");
      u.bind(1, now).bind(2, static_cast<int64_t>(worker)).bind(3, claimed->id);
      Status updated = u.run("claiming a job");
      if (!updated.ok()) {
        (void)exec("ROLLBACK");
        return updated.error();
      }
      claimed->state = "running";
      claimed->attempts += 1;
    }
  }
  Status committed = exec("COMMIT");
  if (!committed.ok()) {
    (void)exec("ROLLBACK");
    return committed.error();
  }
  return claimed;
}

Status JobQueue::finish(int64_t id, const std::string& state, const std::string& error,
                        double now) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              state == "done"
                  ? "UPDATE jobs SET state=?, outcome=?, finished_at=?, worker=NULL WHERE id=?"
                  : "UPDATE jobs SET state=?, last_error=?, outcome=?2, finished_at=?, worker=NULL "
                    "WHERE id=?");
  s.bind(1, state).bind(2, error).bind(3, now).bind(4, id);
  return s.run("finishing a job");
}

Status JobQueue::complete(int64_t id, const std::string& outcome, double now) {
  return finish(id, "done", outcome, now);
}

Status JobQueue::fail(int64_t id, const std::string& error, double now) {
  return finish(id, "failed", error, now);
}

Status JobQueue::retry_later(int64_t id, const std::string& error, double not_before) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE jobs SET state='queued', last_error=?, not_before=?, worker=NULL WHERE id=?");
  s.bind(1, error).bind(2, not_before).bind(3, id);
  return s.run("scheduling a retry");
}

Status JobQueue::requeue(int64_t id) {
  std::lock_guard lock(mutex_);
  Statement s(
      db_, "UPDATE jobs SET state='queued', attempts=max(attempts-1, 0), worker=NULL WHERE id=?");
  s.bind(1, id);
  return s.run("queueing a job again");
}

Result<std::vector<std::pair<int64_t, Notice>>> JobQueue::unsent_notices(int limit) {
  std::lock_guard lock(mutex_);
  std::vector<std::pair<int64_t, Notice>> out;
  Statement s(db_, "SELECT id, notice FROM notices WHERE sent=0 ORDER BY id LIMIT ?");
  s.bind(1, static_cast<int64_t>(limit));
  while (s.step() == SQLITE_ROW) {
    auto j = nlohmann::json::parse(s.text(1), nullptr, false);
    if (!j.is_object()) j = nlohmann::json::object();
    out.push_back(
        {s.integer(0),
         {j.value("kind", ""), j.value("repository", ""), j.value("pull_number", int64_t{0}),
          j.value("head_sha", ""), j.value("message", "")}});
  }
  return out;
}

Status JobQueue::mark_notice_sent(int64_t id) {
  std::lock_guard lock(mutex_);
  Statement u(db_, "UPDATE notices SET sent=1 WHERE id=?");
  u.bind(1, id);
  return u.run("marking a notice sent");
}

Result<std::map<std::string, int64_t>> JobQueue::job_counts() {
  std::lock_guard lock(mutex_);
  std::map<std::string, int64_t> counts = {
      {"queued", 0}, {"running", 0}, {"done", 0}, {"failed", 0}};
  Statement s(db_, "SELECT state, count(*) FROM jobs GROUP BY state");
  while (s.step() == SQLITE_ROW) counts[s.text(0)] = s.integer(1);
  return counts;
}

Result<std::vector<StoredJob>> JobQueue::jobs() {
  std::lock_guard lock(mutex_);
  std::vector<StoredJob> out;
  Statement s(
      db_, "SELECT id, delivery, spec, state, attempts, last_error, outcome FROM jobs ORDER BY id");
  while (s.step() == SQLITE_ROW) {
    auto job = read_job(s);
    if (job.ok()) out.push_back(*job);
  }
  return out;
}

Result<int64_t> JobQueue::delivery_count() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT count(*) FROM deliveries");
  if (s.step() != SQLITE_ROW) return Error::infrastructure("job queue: counting deliveries failed");
  return s.integer(0);
}

Result<bool> JobQueue::has_delivery(const std::string& id) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT 1 FROM deliveries WHERE id=?");
  s.bind(1, id);
  int rc = s.step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return Error::infrastructure(std::string("job queue: looking up a delivery: ") +
                                 sqlite3_errmsg(db_));
  return rc == SQLITE_ROW;
}

Result<double> JobQueue::recovery_since() {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT coalesce((SELECT max(received_at) FROM deliveries), "
              "(SELECT CAST(value AS REAL) FROM meta WHERE key='created_at'))");
  if (s.step() != SQLITE_ROW || s.null(0))
    return Error::infrastructure("job queue: reading the newest delivery's time failed");
  return s.real(0);
}

}  // namespace kgate::webhooks
