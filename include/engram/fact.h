// Fact: one short piece of memory, and NewFact: what a caller supplies to
// add or import one.
//
// A fact's id is derived from its content (see FactId in src/store), so the
// same text added twice in one scope is one fact. Times are milliseconds
// since the Unix epoch, UTC.
#ifndef ENGRAM_FACT_H_
#define ENGRAM_FACT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"

#include "engram/export.h"

namespace engram {

inline constexpr char kDefaultScope[] = "default";
inline constexpr char kDefaultKind[] = "fact";

struct Fact {
  std::string id;                     // 24 hex chars: SHA-256[0:12] of normalised content
  std::string scope = kDefaultScope;  // isolation unit: a user, an agent, a project
  std::string content;                // UTF-8, NFC as given (never rewritten)
  std::vector<std::string> tags;      // lower-case, unique, sorted
  std::string kind = kDefaultKind;    // "fact", "lesson", "preference" or free text
  std::string source;                 // free text: where the fact came from
  Timestamp created_at = 0;
  Timestamp updated_at = 0;
  Timestamp last_accessed = 0;  // created_at until first returned by a search
  int64_t access_count = 0;     // times returned by a search
  double confidence = 1.0;      // 0..1
  std::string metadata = "{}";  // a JSON object, serialised canonically
  // History (docs/ARCHITECTURE.md, "Facts that change"): the id of the fact
  // of the same scope that replaced this one, empty while it is current,
  // and when it stopped being valid (0 while current).
  std::string superseded_by;
  Timestamp valid_until = 0;
  // When the fact stops being returned and `engram gc` may remove it; 0:
  // never.
  Timestamp expires_at = 0;

  bool IsSuperseded() const { return !superseded_by.empty(); }
};

// What a caller supplies. Fields left empty take the defaults above; the
// optional ones are set by imports that restore an exported fact exactly.
struct NewFact {
  std::string content;
  std::string scope = kDefaultScope;
  std::vector<std::string> tags;
  std::string kind = kDefaultKind;
  std::string source;
  double confidence = 1.0;
  std::string metadata = "{}";  // must parse as a JSON object

  std::optional<std::string> id;  // when given, must equal the content's id
  std::optional<Timestamp> created_at;
  std::optional<Timestamp> updated_at;
  std::optional<Timestamp> last_accessed;
  std::optional<int64_t> access_count;
  // Restored history (an exported superseded fact): the replacing fact's
  // id, which must be in the same scope once the import is done, and when
  // this one stopped being valid.
  std::optional<std::string> superseded_by;
  std::optional<Timestamp> valid_until;
  std::optional<Timestamp> expires_at;  // 0 or unset: never expires
};

// The id a fact with this content gets: the first 12 bytes of SHA-256 of
// the content NFKC-normalised, case-folded, trimmed and with inner
// whitespace collapsed, as 24 lower-case hex chars. `content` must be valid
// UTF-8.
ENGRAM_EXPORT std::string ComputeFactId(std::string_view content);

}  // namespace engram

#endif  // ENGRAM_FACT_H_
