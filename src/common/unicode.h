// Unicode normalisation through ICU. Input must be valid UTF-8 (check with
// IsValidUtf8 first); invalid sequences come out as U+FFFD.
// Thread-safe: ICU's normaliser instances are immutable singletons.
#ifndef ENGRAM_SRC_COMMON_UNICODE_H_
#define ENGRAM_SRC_COMMON_UNICODE_H_

#include <string>
#include <string_view>

namespace engram {

// NFKC.
std::string Nfkc(std::string_view text);

// NFKC, then full Unicode case folding ("Straße" -> "strasse").
std::string NfkcCaseFold(std::string_view text);

// Removes combining marks after canonical decomposition, then recomposes:
// "ação" -> "acao", "você" -> "voce".
std::string FoldAccents(std::string_view text);

// True when `text` shows nothing: every code point is white space
// (Unicode's White_Space: spaces, tabs, line and paragraph separators, ...)
// or an invisible format character (U+FEFF byte order mark, zero-width
// spaces and joiners, ...). The empty string is blank.
bool IsBlankText(std::string_view text);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_UNICODE_H_
