// Checks a NewFact against the rules of DESIGN §3/§9 and turns it into the
// Fact the store writes. Errors name the field and say what was wrong;
// callers add where the fact came from (a file line, a request).
// Pure functions, thread-safe.
#ifndef ENGRAM_SRC_ENGINE_FACT_VALIDATOR_H_
#define ENGRAM_SRC_ENGINE_FACT_VALIDATOR_H_

#include <string>
#include <vector>

#include "engram/fact.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

Status ValidateNewFact(const NewFact& fact, const LimitOptions& limits);

// A tag as stored: trimmed, NFKC, case-folded. Filters by tag use it too.
std::string NormalizeTag(std::string_view tag);

// `filter` as the store applies it: tags normalised like stored tags;
// InvalidArgument naming the field for a metadata key with '"' or an empty
// key, or since after until.
Result<FactFilter> NormalizeFilter(const FactFilter& filter);

// Checks engine options a library caller may have set by hand: BM25 and
// temporal parameters in range, weights finite, limits non-zero.
Status ValidateEngineOptions(const EngineOptions& options);

// The fact to store: id from content, tags lower-cased, de-duplicated and
// sorted, metadata canonical, times defaulted from `now` (created_at), then
// created_at (updated_at, last_accessed). `fact` must have passed
// ValidateNewFact.
Fact BuildFact(const NewFact& fact, Timestamp now);

// What re-adding the same content changes besides tags: each of kind,
// source, confidence, metadata and expires_at that `incoming` sets to other
// than its default (kind "fact", no source, confidence 1, empty metadata,
// no expiry) and that differs from `stored` is applied to `stored`
// (metadata key by key: new keys added, given keys replaced). Returns the
// names of the fields changed. To set a field back to its default, update
// the fact.
std::vector<std::string> MergeDescription(const Fact& incoming, Fact* stored);

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_FACT_VALIDATOR_H_
