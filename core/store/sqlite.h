// A thin RAII layer over the SQLite C API: a connection, prepared statements with typed binds and
// columns, and transactions that roll back unless committed. Only core/store uses it (nobody else
// writes SQL).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpusched::store {

// An SQLite failure while using a store that opened fine (I/O, disk full, busy past the timeout).
class SqliteError : public std::runtime_error {
 public:
  SqliteError(const std::string& what, int code) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

class Database {
 public:
  Database() = default;
  // Opens (read-write, creating it when `create`) or read-only; throws SqliteError.
  Database(const std::string& path, bool read_only, bool create);
  ~Database();
  Database(Database&& o) noexcept : db_(o.db_), path_(std::move(o.path_)) { o.db_ = nullptr; }
  Database& operator=(Database&& o) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  void exec(const std::string& sql);
  std::int64_t last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
  std::int64_t changes() const { return sqlite3_changes64(db_); }
  [[noreturn]] void fail(const std::string& doing, int code) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Statement {
 public:
  Statement(const Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binds are 1-based, as in SQLite.
  void bind(int i, std::int64_t v);
  void bind(int i, int v) { bind(i, static_cast<std::int64_t>(v)); }
  void bind(int i, double v);
  void bind(int i, std::string_view v);
  void bind(int i, const char* v) { bind(i, std::string_view(v)); }
  void bind(int i, const std::string& v) { bind(i, std::string_view(v)); }
  void bind_null(int i);

  // Steps once: true while a row is available, false when done. Throws on error.
  bool step();
  // Runs a statement that returns no rows, then resets it for the next binds.
  void run();
  void reset();

  // Columns are 0-based, as in SQLite.
  std::int64_t int64(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string text(int col) const;
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

 private:
  const Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// BEGIN IMMEDIATE ... COMMIT; rolls back in the destructor unless committed.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace gpusched::store
