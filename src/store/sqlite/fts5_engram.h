// engram's FTS5 extensions, which the store's schema names and which
// FactStore registers on every connection it opens, before anything reads
// the full-text tables:
//  - tokenizer "engram": a document's tokens are its IndexForms
//    (index_forms.h), a Portuguese form as an FTS5 colocated token; query
//    strings pass through untouched, because the lexical searcher quotes
//    terms it has already analysed (re-stemming a stem can change it).
//  - auxiliary function engram_tf(facts_fts): a blob of int32 counts,
//    [phrase][column], of each query phrase's occurrences in the row.
#ifndef ENGRAM_SRC_STORE_SQLITE_FTS5_ENGRAM_H_
#define ENGRAM_SRC_STORE_SQLITE_FTS5_ENGRAM_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

Status RegisterEngramFts5(sqlite3* db);

// The FTS5 query for analysed `terms`: each quoted (inner quotes doubled)
// and ORed, within `column` when one is named.
std::string FtsMatchExpression(const std::vector<std::string>& terms, std::string_view column);

// The counts engram_tf() returns for `n_phrases` phrases over `n_fields`
// columns, [phrase][field]; Internal when the blob has another size.
Result<std::vector<int32_t>> DecodeTermFrequencies(std::string_view blob, size_t n_phrases,
                                                   size_t n_fields);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_FTS5_ENGRAM_H_
