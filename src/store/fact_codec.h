// JSON and CSV encodings of facts: the JSONL that `export` writes and
// `import` reads (round-trips every field exactly), and CSV with a header.
//
// Parsing checks shapes and types only; the engine validates content rules
// (UTF-8, size, ids). Errors name the field; callers add the line number.
// Pure functions, thread-safe.
#ifndef ENGRAM_SRC_STORE_FACT_CODEC_H_
#define ENGRAM_SRC_STORE_FACT_CODEC_H_

#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/fact.h"
#include "engram/status.h"

namespace engram {

// One JSON object on one line, every field present, times as ISO-8601 UTC
// with milliseconds, metadata as an object.
std::string FactToJsonLine(const Fact& fact);

// The same object, for callers that embed it in a larger document.
nlohmann::json FactToJson(const Fact& fact);

// Parses one JSON object. Known keys: content (alias text), scope, tags,
// kind, source, confidence, metadata, id, created_at, updated_at,
// last_accessed, access_count, and the history: superseded_by (a fact id),
// valid_until and expires_at (ISO-8601), each null when unset. Unknown keys
// and wrong types are errors.
Result<NewFact> ParseFactJson(std::string_view json);

// The same for a value already parsed (an element of a request body).
Result<NewFact> ParseFactObject(const nlohmann::json& object);

// One record of an input file: its 1-based line number and the parsed fact
// or the reason it could not be parsed.
struct ParsedRecord {
  size_t line = 0;
  Result<NewFact> fact = InvalidArgument("unparsed");
};

// Reads JSONL: one object per line; blank lines are skipped.
void ReadFactsJsonl(std::istream& in, const std::function<void(ParsedRecord)>& sink);

// Reads CSV (RFC 4180: quoted fields, doubled quotes, newlines inside
// quotes). The first record is a header naming the same keys as JSON;
// `content` (or `text`) is required; `tags` holds tags separated by ';'.
// `line` is the line on which the record starts.
void ReadFactsCsv(std::istream& in, const std::function<void(ParsedRecord)>& sink);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_FACT_CODEC_H_
