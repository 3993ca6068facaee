// The full-text index of term arrays that the PostgreSQL store keeps for
// facts and for attached-file chunks (pg_schema.h): each row holds its
// distinct index forms (src/store/index_forms.h) in `terms`-like text[]
// column under a GIN index, and per field an integer[] of each form's
// count, in the same order. These are the pieces both tables share: the
// arrays written for a text, the query run on the GIN index, and the
// counts of a query's phrases read back from a row.
//
// Thread-safety: functions over the caller's connection; PhraseCounter is
// a value type.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_TERM_INDEX_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_TERM_INDEX_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/pg_query.h"

namespace engram {

// The parameters of a text's term arrays: its forms, and their counts in
// the content and in the tags (all zero for a text without tags).
struct TermArrays {
  PgParam terms;
  PgParam content_tf;
  PgParam tags_tf;
};
// The arrays of a text whose content is `content` and whose tags, as
// stored (EncodeTags), are `encoded_tags` ("" for none).
TermArrays TermArraysOf(std::string_view content, std::string_view encoded_tags);

// Runs `query`, which finds rows by their terms (`&&`, `@>`), with the
// planner told to use the GIN index on them.
Result<PgResult> RunOnTermIndex(PgConnection& db, const PgQuery& query);

// The occurrences of a query's phrases in one row of term arrays.
class PhraseCounter {
 public:
  explicit PhraseCounter(const std::vector<std::string>& phrases);

  // Counts [phrase][field] of the row whose forms are the text[] column
  // text `terms` and whose per-field counts are the integer[] column texts
  // `fields`; Corruption, naming `row` ("fact row 12"), when the arrays do not parse or
  // differ in length.
  Result<std::vector<int32_t>> Count(std::string_view terms,
                                     const std::vector<std::string_view>& fields,
                                     std::string_view row) const;

 private:
  size_t phrases_;
  std::unordered_multimap<std::string, size_t> phrase_at_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_TERM_INDEX_H_
