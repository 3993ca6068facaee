// The lexical analyzer: turns text into the terms BM25 indexes and queries
// with (DESIGN §4). Pipeline:
//
//  1. Words. A word is a maximal run of word characters of the ORIGINAL
//     bytes: ASCII letters, digits and '_', and any non-ASCII code point that
//     is a letter or a digit (ICU u_isalnum) or a combining mark (so text in
//     decomposed form is not split inside a letter). Everything else
//     separates words: "file_name.cc" -> "file_name", "cc";
//     "don't" -> "don", "t" (both stop words). Leading and trailing '_' are
//     then trimmed ("__init__" -> "init"); a word of only '_' is dropped.
//  2. NFKC and full case folding ("ﬁle" -> "file", "Straße" -> "strasse").
//  3. Stop words (when enabled): the accent-folded word is looked up in the
//     list of the text's language (stop_words.h), question words included.
//     Only that language's list: a Portuguese function word is an English
//     content word often enough ("eu-west-1", "AI", "sera", "SEM", "Na").
//  4. Stemming (when enabled) with the Snowball stemmer of the language;
//     the stem is accent-folded (stemmer.h explains the accent handling).
//     Without stemming the term is the accent-folded word.
//  5. Empty terms are dropped. Pure numbers are kept ("2024").
//
// Terms are therefore lower-case and accent-free: "Ação" and "acao" give the
// same term. Input must be valid UTF-8 (check with IsValidUtf8).
// Thread-safe: no shared mutable state (stemmers are per thread).
#ifndef ENGRAM_SRC_TEXT_ANALYZER_H_
#define ENGRAM_SRC_TEXT_ANALYZER_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "src/text/language.h"

namespace engram {

// Version of what Analyze produces. Bump it with any change that alters
// terms for some input (stop lists, stemming, splitting, folding): stores
// indexed with another version rebuild their full-text index on open.
inline constexpr int kAnalyzerVersion = 3;

// One term and where its word is in the analyzed text.
struct AnalyzedToken {
  std::string term;
  size_t begin = 0;  // byte offset of the word's first byte in the input
  size_t end = 0;    // byte offset one past the word's last byte
};

struct AnalyzerOptions {
  // Drop English and Portuguese stop words. Default true. Off keeps every
  // word, e.g. to index a phrase verbatim; BM25 then matches question words.
  bool remove_stop_words = true;
  // Reduce words to their Snowball stem ("running" -> "run"). Default true.
  // Off gives exact-word matching: higher precision, lower recall.
  bool stem = true;
};

// The language of `text`, English by default. Each word scores for at most
// one language:
//   - English: it is an English stop word and not a Portuguese one
//     ("the", "what", "is");
//   - Portuguese: it is a Portuguese stop word and not an English one
//     ("que", "não", "uma"), or, not being a stop word, it contains one of
//     the Portuguese letters ã õ ç ("configurações", "São").
// Words on both lists ("a", "as", "do", "no") count for neither. The text is
// Portuguese when pt > 0 and pt >= 2 * en, i.e. it has clearly more
// Portuguese evidence than English; otherwise English (including ties and
// texts with no evidence at all).
Language DetectLanguage(std::string_view text);

// Terms of `text` in order, in the language DetectLanguage picks for it,
// which `detected` (when given) receives.
std::vector<AnalyzedToken> Analyze(std::string_view text, const AnalyzerOptions& options = {},
                                   Language* detected = nullptr);

// Terms of `text` in order, stemmed for `language`.
std::vector<AnalyzedToken> Analyze(std::string_view text, Language language,
                                   const AnalyzerOptions& options = {});

// The term the word of `text` at [token.begin, token.end) gives when
// analysed as `language` (steps 2, 4 and 5; stop words are not looked up).
std::string TermAs(std::string_view text, const AnalyzedToken& token, Language language,
                   const AnalyzerOptions& options = {});

// `term` as the full-text index of a text detected as Portuguese holds it
// besides the term itself (src/store/index_forms.h): behind a mark that no
// analysed term holds (a control character). The form an English query's
// Portuguese words and translations look for, so that they match in
// Portuguese texts and nowhere else.
std::string PortugueseTextForm(std::string_view term);

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_ANALYZER_H_
