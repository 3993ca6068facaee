// Registers engram's FTS5 extensions on a SQLite connection:
//  - tokenizer "engram": documents go through the analyzer (src/text);
//    query strings pass through untouched, because the lexical searcher
//    quotes terms it has already analysed (re-stemming a stem can change it).
//    A text detected as Portuguese also gets, at the position of each term,
//    the term's PortugueseTextForm (an FTS5 colocated token, which adds no
//    length): the form an English query's Portuguese words and translations
//    look for, so they match in Portuguese texts and nowhere else.
//  - auxiliary function engram_tf(facts_fts): a blob of int32 counts,
//    [phrase][column], of each query phrase's occurrences in the row.
#ifndef ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_
#define ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram {

// `term` as a Portuguese text's index holds it besides the term itself:
// behind a mark that no analysed term holds (a control character).
std::string PortugueseTextForm(std::string_view term);

Status RegisterEngramFts5(sqlite3* db);

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_FTS5_ENGRAM_H_
