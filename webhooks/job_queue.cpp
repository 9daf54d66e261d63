#include "webhooks/job_queue.h"

#include <chrono>

#include "webhooks/sqlite_statement.h"

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
CREATE TABLE IF NOT EXISTS pending(
  delivery TEXT PRIMARY KEY, pinned TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
  not_before REAL NOT NULL DEFAULT 0);
)sql";

// Columns added since the first schema, with what fills them in older rows.
const char* kPriorityColumns = R"sql(
ALTER TABLE jobs ADD COLUMN priority INTEGER NOT NULL DEFAULT 1;
ALTER TABLE jobs ADD COLUMN preemptions INTEGER NOT NULL DEFAULT 0;
UPDATE jobs SET priority=0 WHERE kind IN ('gate', 'accept-regression');
UPDATE jobs SET priority=2 WHERE kind IN ('optimize', 'sweep');
)sql";

const char* kJobColumns =
    "id, delivery, spec, state, attempts, last_error, outcome, priority, preemptions";

nlohmann::json pull_json(const PullState& p) {
  return {{"repository", p.repository},
          {"number", p.number},
          {"head_sha", p.head_sha},
          {"base_sha", p.base_sha},
          {"trusted", p.trusted}};
}

std::vector<PullState> pulls_from_json(const std::string& text) {
  std::vector<PullState> out;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) return out;
  for (const auto& p : j) {
    if (!p.is_object()) continue;
    out.push_back({p.value("repository", ""), p.value("number", int64_t{0}),
                   p.value("head_sha", ""), p.value("base_sha", ""), p.value("trusted", false)});
  }
  return out;
}

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
  job.priority = static_cast<int>(s.integer(7));
  job.preemptions = static_cast<int>(s.integer(8));
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
  KGATE_RETURN_IF_ERROR(queue->migrate());
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

Status JobQueue::migrate() {
  Statement columns(db_, "SELECT 1 FROM pragma_table_info('jobs') WHERE name='priority'");
  if (columns.step() == SQLITE_ROW) return {};
  KGATE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  Status added = exec(kPriorityColumns);
  if (!added.ok()) {
    (void)exec("ROLLBACK");
    return added;
  }
  KGATE_RETURN_IF_ERROR(exec("COMMIT"));
  return exec("CREATE INDEX IF NOT EXISTS jobs_by_priority ON jobs(state, priority, id)");
}

std::optional<PullState> JobQueue::known_pull_locked(const std::string& repo, int64_t number) {
  Statement s(db_, "SELECT head_sha, base_sha, trusted FROM pulls WHERE repository=? AND number=?");
  s.bind(1, repo).bind(2, number);
  if (s.step() != SQLITE_ROW) return std::nullopt;
  return PullState{repo, number, s.text(0), s.text(1), s.integer(2) != 0};
}

bool JobQueue::is_approved_locked(const std::string& repo, const std::string& sha) {
  Statement s(db_, "SELECT 1 FROM approvals WHERE repository=? AND head_sha=?");
  s.bind(1, repo).bind(2, sha);
  return s.step() == SQLITE_ROW;
}

std::optional<PullState> JobQueue::pull_with_head_locked(const std::string& repo,
                                                         const std::string& sha) {
  Statement s(db_,
              "SELECT number, base_sha, trusted FROM pulls WHERE repository=? AND head_sha=? "
              "LIMIT 2");
  s.bind(1, repo).bind(2, sha);
  if (s.step() != SQLITE_ROW) return std::nullopt;
  PullState pull{repo, s.integer(0), sha, s.text(1), s.integer(2) != 0};
  if (s.step() == SQLITE_ROW) return std::nullopt;  // two pull requests with one head: ambiguous
  return pull;
}

RoutingContext JobQueue::reading_context() {
  RoutingContext context;
  context.known_pull = [this](const std::string& repo, int64_t number) {
    std::lock_guard lock(mutex_);
    return known_pull_locked(repo, number);
  };
  context.is_approved = [this](const std::string& repo, const std::string& sha) {
    std::lock_guard lock(mutex_);
    return is_approved_locked(repo, sha);
  };
  context.pull_with_head = [this](const std::string& repo, const std::string& sha) {
    std::lock_guard lock(mutex_);
    return pull_with_head_locked(repo, sha);
  };
  return context;
}

Status JobQueue::store_routing(const std::string& delivery, const Routing& routing, double now,
                               bool pull_update) {
  for (const JobSpec& job : routing.jobs) {
    Statement s(db_,
                "INSERT INTO jobs(delivery, kind, spec, state, created_at, priority) "
                "VALUES(?,?,?,'queued',?,?)");
    s.bind(1, delivery).bind(2, std::string(to_string(job.kind))).bind(3, job.to_json().dump());
    s.bind(4, now).bind(5, static_cast<int64_t>(job_priority(job.kind)));
    KGATE_RETURN_IF_ERROR(s.run("queueing a job"));
  }
  if (routing.pull_update && pull_update) {
    const PullState& p = *routing.pull_update;
    Statement s(db_,
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
  context.known_pull = [this](const std::string& repo, int64_t number) {
    return known_pull_locked(repo, number);
  };
  context.is_approved = [this](const std::string& repo, const std::string& sha) {
    return is_approved_locked(repo, sha);
  };
  context.pull_with_head = [this](const std::string& repo, const std::string& sha) {
    return pull_with_head_locked(repo, sha);
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
      Routed routed = router(d, context);
      bool pending = !routed.deferred.empty();
      const Routing& routing = routed.routing;
      Statement insert(
          db_,
          "INSERT INTO deliveries(id, event, action, received_at, outcome, jobs, body) "
          "VALUES(?,?,?,?,?,?,?)");
      insert.bind(1, d.id).bind(2, d.event).bind(3, d.action).bind(4, now);
      insert.bind(5, std::string(pending                ? "pending"
                                 : routing.jobs.empty() ? "ignored"
                                                        : "queued"));
      insert.bind(6, static_cast<int64_t>(pending ? 0 : routing.jobs.size())).bind_blob(7, d.body);
      KGATE_RETURN_IF_ERROR(insert.run("storing a delivery"));
      if (pending) {
        nlohmann::json pinned = nlohmann::json::array();
        for (const PullState& p : routed.pinned) pinned.push_back(pull_json(p));
        Statement s(db_, "INSERT INTO pending(delivery, pinned) VALUES(?,?)");
        s.bind(1, d.id).bind(2, pinned.dump());
        KGATE_RETURN_IF_ERROR(s.run("recording a pending delivery"));
        results[i].first = DeliveryOutcome::kPending;
        results[i].second.ignored = routed.deferred;
        return {};
      }
      KGATE_RETURN_IF_ERROR(store_routing(d.id, routing, now, true));
      results[i] = {routing.jobs.empty() ? DeliveryOutcome::kIgnored : DeliveryOutcome::kQueued,
                    std::move(routed.routing)};
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

Result<std::vector<PendingDelivery>> JobQueue::due_pending(double now, int limit) {
  std::lock_guard lock(mutex_);
  std::vector<PendingDelivery> out;
  Statement s(db_,
              "SELECT d.id, d.event, d.body, p.pinned, p.attempts, d.received_at FROM pending p "
              "JOIN deliveries d ON d.id = p.delivery WHERE p.not_before <= ? "
              "ORDER BY d.received_at, d.rowid LIMIT ?");
  s.bind(1, now).bind(2, static_cast<int64_t>(limit));
  int rc;
  while ((rc = s.step()) == SQLITE_ROW)
    out.push_back({s.text(0), s.text(1), s.blob(2), pulls_from_json(s.text(3)),
                   static_cast<int>(s.integer(4)), s.real(5)});
  if (rc != SQLITE_DONE)
    return Error::infrastructure(std::string("job queue: reading pending deliveries: ") +
                                 sqlite3_errmsg(db_));
  return out;
}

Status JobQueue::finish_pending(const std::string& id, const Routing& routing) {
  std::lock_guard lock(mutex_);
  KGATE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  Status stored = [&]() -> Status {
    Statement still(db_, "DELETE FROM pending WHERE delivery=?");
    still.bind(1, id);
    KGATE_RETURN_IF_ERROR(still.run("ending a pending delivery"));
    if (sqlite3_changes(db_) == 0) return {};  // routed already
    KGATE_RETURN_IF_ERROR(store_routing(id, routing, unix_now(), false));
    Statement u(db_, "UPDATE deliveries SET outcome=?, jobs=? WHERE id=?");
    u.bind(1, std::string(routing.jobs.empty() ? "ignored" : "queued"));
    u.bind(2, static_cast<int64_t>(routing.jobs.size())).bind(3, id);
    return u.run("recording a pending delivery's routing");
  }();
  if (!stored.ok()) {
    (void)exec("ROLLBACK");
    return stored;
  }
  Status committed = exec("COMMIT");
  if (!committed.ok()) (void)exec("ROLLBACK");
  return committed;
}

Status JobQueue::postpone_pending(const std::string& id, double not_before) {
  std::lock_guard lock(mutex_);
  Statement s(db_, "UPDATE pending SET attempts=attempts+1, not_before=? WHERE delivery=?");
  s.bind(1, not_before).bind(2, id);
  return s.run("postponing a pending delivery");
}

Result<int64_t> JobQueue::pending_count() {
  std::lock_guard lock(mutex_);
  Statement s(db_, "SELECT count(*) FROM pending");
  if (s.step() != SQLITE_ROW)
    return Error::infrastructure("job queue: counting pending deliveries failed");
  return s.integer(0);
}

Result<int> JobQueue::recover() {
  std::lock_guard lock(mutex_);
  KGATE_RETURN_IF_ERROR(
      exec("UPDATE jobs SET state='queued', attempts=max(attempts-1, 0), worker=NULL "
           "WHERE state='running'"));
  return sqlite3_changes(db_);
}

Result<std::optional<StoredJob>> JobQueue::claim(int worker, double now, int max_priority) {
  std::lock_guard lock(mutex_);
  KGATE_RETURN_IF_ERROR(exec("BEGIN IMMEDIATE"));
  std::optional<StoredJob> claimed;
  std::string sql = std::string("SELECT ") + kJobColumns +
                    " FROM jobs WHERE state='queued' AND not_before<=? AND priority<=? "
                    "ORDER BY priority, id LIMIT 1";
  Statement s(db_, sql.c_str());
  s.bind(1, now).bind(2, static_cast<int64_t>(max_priority));
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

Status JobQueue::requeue(int64_t id, bool preempted) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "UPDATE jobs SET state='queued', attempts=max(attempts-1, 0), worker=NULL, "
              "preemptions=preemptions+? WHERE id=?");
  s.bind(1, static_cast<int64_t>(preempted)).bind(2, id);
  return s.run("queueing a job again");
}

Result<bool> JobQueue::has_due(int max_priority, double now) {
  std::lock_guard lock(mutex_);
  Statement s(db_,
              "SELECT 1 FROM jobs WHERE state='queued' AND not_before<=? AND priority<=? LIMIT 1");
  s.bind(1, now).bind(2, static_cast<int64_t>(max_priority));
  int rc = s.step();
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return Error::infrastructure(std::string("job queue: looking for due jobs: ") +
                                 sqlite3_errmsg(db_));
  return rc == SQLITE_ROW;
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
  std::string sql = std::string("SELECT ") + kJobColumns + " FROM jobs ORDER BY id";
  Statement s(db_, sql.c_str());
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
