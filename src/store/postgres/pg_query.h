// PgQuery: the SQL text of one statement and its parameters, built
// together, so a condition added in one place numbers its own $n. Values
// are always parameters, never spliced into the text.
//
// Also the text forms of PostgreSQL arrays, for text[] and integer[]
// parameters.
//
// Thread-safety: a value type.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_QUERY_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_QUERY_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {

class PgQuery {
 public:
  explicit PgQuery(std::string_view sql = {}) : sql_(sql) {}

  // Appends SQL text.
  PgQuery& operator+=(std::string_view sql) {
    sql_ += sql;
    return *this;
  }
  // Adds `param` and returns its placeholder ("$3").
  std::string Param(PgParam param);

  // Runs the statement on `db`.
  Result<PgResult> Run(PgConnection& db) const { return db.Query(sql_, params_); }

 private:
  std::string sql_;
  std::vector<PgParam> params_;
};

// `values` as an array literal, e.g. {"a","b \"c\""}, for a text[]
// parameter: every element quoted, quotes and backslashes escaped.
PgParam TextArray(const std::vector<std::string>& values);
// The bytes of `floats` as they are stored (a vector blob), for a bytea
// parameter.
PgParam FloatsParam(std::span<const float> floats);
// `values` as an array literal, e.g. {1,2}, for an integer[] or bigint[]
// parameter.
PgParam IntArray(const std::vector<int64_t>& values);
// Column `column` of every row of `r`, as text.
std::vector<std::string> TextColumn(const PgResult& r, int column);
// The elements of a text[] column's text ({a,"b c",d}), unquoted and
// unescaped; InvalidArgument when it is not one (or holds a NULL).
Result<std::vector<std::string>> ParseTextArray(std::string_view text);
// The integers of an array column's text ({1,2,3}); InvalidArgument when it
// is not one.
Result<std::vector<int64_t>> ParseIntArray(std::string_view text);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_QUERY_H_
