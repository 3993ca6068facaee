// Registers engram's FTS5 extensions on a SQLite connection:
//  - tokenizer "engram": documents go through the analyzer (src/text);
//    query strings pass through untouched, because the lexical searcher
//    quotes terms it has already analysed (re-stemming a stem can change it).
//  - auxiliary function engram_tf(facts_fts): a blob of int32 counts,
//    [phrase][column], of each query phrase's occurrences in the row.
#ifndef ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_
#define ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_

#include <sqlite3.h>

#include "engram/status.h"

namespace engram {

Status RegisterEngramFts5(sqlite3* db);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_
