// English and Portuguese stop words: function words plus question words
// ("what", "when", "did", "quando", "onde", ...). DESIGN §4: without question
// words as stop words, BM25 matched a third to four fifths of a memory for
// every question.
//
// Entries are stored lower-case and accent-folded ("você" is stored as
// "voce", "não" as "nao"), so callers look words up in that form: pass the
// output of FoldAccents(NfkcCaseFold(word)). The English list also holds
// contractions ("don't") and the fragments a split on the apostrophe leaves
// ("don", "t", "ll", "ve"), so both tokenisers drop them.
//
// Folding merges some words: "é" and "e", "está" and "esta" are one entry
// each. The analyzer drops only the stop words of a text's language (many
// Portuguese entries are English content words: "ai", "eu", "sera", "sem");
// both lists give it evidence of the language.
//
// Thread-safe: the sets are immutable after their first (thread-safe static)
// initialisation.
#ifndef ENGRAM_SRC_TEXT_STOP_WORDS_H_
#define ENGRAM_SRC_TEXT_STOP_WORDS_H_

#include <span>
#include <string_view>

namespace engram {

// Which lists a word is on. A word can be on both ("a", "as", "do", "no").
struct StopWordMatch {
  bool english = false;
  bool portuguese = false;
};

// One lookup that answers for both lists. `folded_lower_word` is lower-case
// and accent-folded.
StopWordMatch MatchStopWord(std::string_view folded_lower_word);

// True when the word is an English or a Portuguese stop word.
bool IsStopWord(std::string_view folded_lower_word);

// The raw lists, lower-case and accent-folded (pure ASCII), no duplicates
// within a list. For tests and diagnostics.
std::span<const std::string_view> EnglishStopWords();
std::span<const std::string_view> PortugueseStopWords();

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_STOP_WORDS_H_
