// Content-derived fact ids (DESIGN §3).
#ifndef ENGRAM_SRC_STORE_FACT_ID_H_
#define ENGRAM_SRC_STORE_FACT_ID_H_

#include <string>
#include <string_view>

namespace engram {

// NFKC, case-folded, trimmed, inner whitespace runs collapsed to one space.
// `content` must be valid UTF-8.
std::string NormalizeForId(std::string_view content);

// First 12 bytes of SHA-256 of NormalizeForId(content), as 24 hex chars.
std::string FactId(std::string_view content);

// What is wrong with a stored fact whose content no longer gives its id (the
// file changed outside engram): "its content is not valid UTF-8 (byte N)"
// or "its content no longer matches its id"; empty when nothing is.
std::string IdMismatch(std::string_view id, std::string_view content);

// True when `text` looks like an id or an id prefix: 1-24 lower-case hex.
bool LooksLikeIdPrefix(std::string_view text);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_FACT_ID_H_
