// Keyword extraction (DESIGN §4): the words a text is most about, used as the
// lexical query and to merge HyDE hypotheses into it.
//
//  1. The text is NFKC-normalised and case-folded ("Café" -> "café").
//  2. It is split on Unicode whitespace (u_isUWhiteSpace).
//  3. Each token loses its leading and trailing code points that are not
//     letters, combining marks or numbers: Unicode punctuation (“ ” « » …
//     — ¿) and symbols (` $ + < > → ✅), not just ASCII. Inner punctuation
//     stays: "file.cc", "don't", "e-mail".
//  4. Tokens under 3 code points are dropped ("çã" is 2 and goes, "ação"
//     stays), and so are English and Portuguese stop words, compared
//     accent-folded with ’ read as ' ("você", "voce" and "don’t" all go).
//  5. The rest are ranked by frequency, descending, then by byte order of the
//     keyword, and the first `max_keywords` are kept.
//
// Keywords are lower-case but keep their accents ("café", not "cafe"); they
// are neither stemmed nor accent-folded, so "café" and "cafe" are two
// keywords. Input must be valid UTF-8. Thread-safe: pure function.
#ifndef ENGRAM_SRC_TEXT_KEYWORDS_H_
#define ENGRAM_SRC_TEXT_KEYWORDS_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

// Up to `max_keywords` keywords of `text`, most frequent first (ties in byte
// order). Empty for empty text or max_keywords == 0.
std::vector<std::string> ExtractKeywords(std::string_view text, size_t max_keywords = 20);

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_KEYWORDS_H_
