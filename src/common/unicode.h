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

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_UNICODE_H_
