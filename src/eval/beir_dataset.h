// BeirDataset: an evaluation dataset in the BEIR layout, loaded whole.
//
//   <dir>/corpus.jsonl    {"_id", "title", "text", "metadata"?} per line
//   <dir>/queries.jsonl   {"_id", "text", "metadata"?} per line
//   <dir>/qrels/<split>.tsv   "query-id\tcorpus-id\tscore" with a header
//
// Optional "metadata" object: "scope" (a string; a query searches only the
// corpus rows of its scope), "created_at" (ISO-8601, corpus rows only) and
// "tags" (array of strings). "_id" is a non-empty string (a JSON integer is
// taken as its decimal text); "text" is a required string; "title" is
// optional. A null value counts as absent; unknown fields are ignored.
// Blank lines are skipped. Malformed JSON, a missing or repeated "_id", or a
// field of the wrong type is InvalidArgument naming "<file>:<line>".
// Rows keep their file order. Judgments for a query id that queries.jsonl
// does not have are dropped (no text to search with; kept, they would score
// 0 under QuerySet::kWithRelevant) and counted; judged doc ids are not
// checked against the corpus.
//
// Thread-safety: plain values and a free function.
#ifndef ENGRAM_SRC_EVAL_BEIR_DATASET_H_
#define ENGRAM_SRC_EVAL_BEIR_DATASET_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/fact.h"
#include "engram/status.h"
#include "src/eval/qrels.h"

namespace engram {

struct CorpusDoc {
  std::string id;
  std::string title;  // "" when absent
  std::string text;
  std::string scope = kDefaultScope;
  std::optional<Timestamp> created_at;  // ms since the epoch, UTC
  std::vector<std::string> tags;
};

// A corpus row as one fact's text: its title and text joined by a newline,
// or the text alone when it has no title (`engram eval` indexes this).
std::string FactContent(const CorpusDoc& d);

struct EvalQuery {
  std::string id;
  std::string text;
  std::string scope = kDefaultScope;
  std::vector<std::string> tags;
};

struct BeirDataset {
  std::string name;  // the directory's base name, e.g. "scifact"
  std::vector<CorpusDoc> corpus;
  std::vector<EvalQuery> queries;
  Qrels qrels;  // only queries present in `queries`
  // qrels/stale.tsv when the dataset has one: per query, the facts that
  // were superseded by newer ones (src/eval/update_metrics.h).
  std::optional<Qrels> stale;
  // Queries judged in the qrels file but absent from queries.jsonl.
  int num_dropped_qrels_queries = 0;
};

struct BeirLoadOptions {
  // Which qrels file to read: qrels/<qrels_split>.tsv. Default "test".
  std::string qrels_split = "test";
};

// Loads the dataset in `dir`. IOError when a file cannot be read.
Result<BeirDataset> LoadBeirDataset(const std::filesystem::path& dir,
                                    const BeirLoadOptions& options = {});

// The corpus and queries parsers on their own; `source` names the input in
// error messages.
Result<std::vector<CorpusDoc>> ParseBeirCorpus(std::string_view text,
                                               const std::filesystem::path& source);
Result<std::vector<EvalQuery>> ParseBeirQueries(std::string_view text,
                                                const std::filesystem::path& source);

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_BEIR_DATASET_H_
