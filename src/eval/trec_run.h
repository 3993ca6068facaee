// TREC run files: read and write the format trec_eval takes as its results
// file, one retrieved document per line:
//
//   qid Q0 docno rank score tag
//
// Fields are separated by whitespace. Reading keeps each query's results in
// file order and ignores the Q0 and rank fields, as trec_eval does (it ranks
// by score); a doc listed twice for one query is an error, as in trec_eval.
// Writing emits queries in id order and each query's results in the order
// given, numbering ranks from 1; pass results sorted best first (see
// SortTrecEvalOrder in metrics.h) so the rank column agrees with the scores.
// Scores are written in the shortest form that reads back to the same double.
//
// Thread-safety: free functions without shared state.
#ifndef ENGRAM_SRC_EVAL_TREC_RUN_H_
#define ENGRAM_SRC_EVAL_TREC_RUN_H_

#include <filesystem>
#include <string>
#include <string_view>

#include "engram/status.h"
#include "src/eval/eval_run.h"

namespace engram {

// Parses run text. `source` names the input in error messages, which give
// "<source>:<line>" for a malformed line, a bad or NaN score, or a duplicate.
Result<EvalRun> ParseTrecRun(std::string_view text, const std::filesystem::path& source);
Result<EvalRun> LoadTrecRun(const std::filesystem::path& path);

// Formats `run` with run tag `tag`. Query ids, doc ids and the tag must be
// non-empty and free of whitespace, and scores finite; otherwise
// InvalidArgument. Queries with no results produce no lines.
Result<std::string> FormatTrecRun(const EvalRun& run, std::string_view tag);

// FormatTrecRun, written to `path` (replaced if it exists).
Status WriteTrecRun(const EvalRun& run, std::string_view tag, const std::filesystem::path& path);

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_TREC_RUN_H_
