#pragma once
// A prepared SQLite statement, finalized on scope exit, for the queue's files.
// Invariant: a statement that failed to prepare reports SQLITE_ERROR on every
// step, so a caller's error path names the query instead of crashing.
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace kgate::webhooks {

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
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
  std::string blob(int col) {
    const void* b = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return b ? std::string(static_cast<const char*>(b), static_cast<size_t>(n)) : "";
  }
  int64_t integer(int col) { return sqlite3_column_int64(stmt_, col); }
  double real(int col) { return sqlite3_column_double(stmt_, col); }
  bool null(int col) { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace kgate::webhooks
