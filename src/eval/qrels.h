// Qrels: relevance judgments, query id -> (doc id -> grade), and loaders for
// the two file formats we meet.
//
// A grade is an integer: >= 1 is relevant at trec_eval's default relevance
// level, 0 is judged non-relevant, negative means "in the pool but not
// judged" (trec_eval's convention); neither 0 nor negative grades count as
// relevant or carry gain. A doc absent from a query's judgments is unjudged.
//
// Both loaders reject a (query, doc) pair judged twice, as trec_eval does,
// and name the file and line of any bad input. Blank lines are skipped.
//
// Thread-safety: plain values and free functions.
#ifndef ENGRAM_SRC_EVAL_QRELS_H_
#define ENGRAM_SRC_EVAL_QRELS_H_

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engram/status.h"

namespace engram {

// One query's judgments: doc id -> grade.
using Judgments = std::unordered_map<std::string, int>;

// Query id -> judgments, ordered by query id.
using Qrels = std::map<std::string, Judgments>;

// TREC qrels: one judgment per line, "qid iter docno rel" separated by
// whitespace; the iteration field is ignored. `source` names the input in
// error messages (usually the file path).
Result<Qrels> ParseTrecQrels(std::string_view text, const std::filesystem::path& source);
Result<Qrels> LoadTrecQrels(const std::filesystem::path& path);

// BEIR qrels: tab-separated "query-id corpus-id score", integer scores. The
// first line is a header ("query-id\tcorpus-id\tscore") and is skipped when
// its score field is not an integer, so header-less files load too.
Result<Qrels> ParseBeirQrels(std::string_view text, const std::filesystem::path& source);
Result<Qrels> LoadBeirQrels(const std::filesystem::path& path);

// Number of docs in `judgments` with grade >= relevance_level.
int CountRelevant(const Judgments& judgments, int relevance_level = 1);

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_QRELS_H_
