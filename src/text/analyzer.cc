#include "src/text/analyzer.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "src/common/unicode.h"
#include "src/common/utf8.h"
#include "src/text/stemmer.h"
#include "src/text/stop_words.h"

namespace engram {
namespace {

// ASCII bytes that are word characters: letters, digits and '_'.
constexpr std::array<bool, 128> kAsciiWordByte = [] {
  std::array<bool, 128> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  table['_'] = true;
  return table;
}();

bool IsWordCodePoint(char32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  return u_isalnum(c) || (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0;
}

// Calls `fn(begin, end, ascii)` for every word of `text` (see analyzer.h),
// with leading and trailing '_' trimmed; `ascii` is true when the word is
// pure ASCII.
template <typename Fn>
void ForEachWord(std::string_view text, Fn&& fn) {
  const auto emit = [&](size_t begin, size_t end, bool ascii) {
    while (begin < end && text[begin] == '_') ++begin;
    while (end > begin && text[end - 1] == '_') --end;
    if (begin < end) fn(begin, end, ascii);
  };
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    // Skip separators.
    bool found = false;
    while (i < n) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x80) {
        if (kAsciiWordByte[c]) {
          found = true;
          break;
        }
        ++i;
        continue;
      }
      size_t next = i;
      if (IsWordCodePoint(NextCodePoint(text, &next))) {
        found = true;
        break;
      }
      i = next;
    }
    if (!found) return;
    // Consume the word.
    const size_t begin = i;
    bool ascii = true;
    while (i < n) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (c < 0x80) {
        if (!kAsciiWordByte[c]) break;
        ++i;
        continue;
      }
      size_t next = i;
      if (!IsWordCodePoint(NextCodePoint(text, &next))) break;
      ascii = false;
      i = next;
    }
    emit(begin, i, ascii);
  }
}

// `word` NFKC-normalised and case-folded, into `lower`.
void FoldCase(std::string_view word, bool ascii, std::string* lower) {
  if (!ascii) {
    *lower = NfkcCaseFold(word);
    return;
  }
  lower->assign(word);
  LowerAsciiInPlace(lower);
}

// True when case-folded `lower` contains ã, õ or ç.
bool HasPortugueseLetter(std::string_view lower) {
  return lower.find("\xC3\xA3") != std::string_view::npos ||  // ã
         lower.find("\xC3\xB5") != std::string_view::npos ||  // õ
         lower.find("\xC3\xA7") != std::string_view::npos;    // ç
}

// Language evidence counted by DetectLanguage (rule in analyzer.h).
struct Evidence {
  size_t english = 0;
  size_t portuguese = 0;

  void Add(const StopWordMatch& match, std::string_view lower, bool ascii) {
    if (match.english && !match.portuguese) {
      ++english;
    } else if (match.portuguese && !match.english) {
      ++portuguese;
    } else if (!match.english && !match.portuguese && !ascii && HasPortugueseLetter(lower)) {
      ++portuguese;
    }
  }

  Language Decide() const {
    return portuguese > 0 && portuguese >= 2 * english ? Language::kPortuguese : Language::kEnglish;
  }
};

// A word of the text before stop-word removal: its token (term set to
// the case-folded, still accented word) and the lists it is on.
struct CollectedWord {
  AnalyzedToken token;
  StopWordMatch stop;
};

// Steps 1-2 of the pipeline. Appends to `words` (when given) every word
// with the stop lists it is on (looked up only when `match_stop_words`);
// counts language evidence into `evidence` (when given).
void Collect(std::string_view text, bool match_stop_words, std::vector<CollectedWord>* words,
             Evidence* evidence) {
  const bool need_match = match_stop_words || evidence != nullptr;
  std::string lower;
  std::string folded;
  ForEachWord(text, [&](size_t begin, size_t end, bool ascii) {
    FoldCase(text.substr(begin, end - begin), ascii, &lower);
    StopWordMatch match;
    if (need_match) {
      if (!ascii) folded = FoldAccents(lower);
      match = MatchStopWord(ascii ? std::string_view(lower) : std::string_view(folded));
    }
    if (evidence != nullptr) evidence->Add(match, lower, ascii);
    if (words != nullptr) words->push_back({{lower, begin, end}, match});
  });
}

// `lower` (case-folded) as a term of `language`: step 4.
std::string TermOf(std::string_view lower, Language language, const AnalyzerOptions& options) {
  return options.stem ? Stem(lower, language) : FoldAccents(lower);
}

// Steps 3-5: drops the stop words of `language` and turns each remaining
// word into its final term.
std::vector<AnalyzedToken> Finish(Language language, const AnalyzerOptions& options,
                                  std::vector<CollectedWord>* words) {
  std::vector<AnalyzedToken> tokens;
  tokens.reserve(words->size());
  for (CollectedWord& w : *words) {
    const bool stop = language == Language::kPortuguese ? w.stop.portuguese : w.stop.english;
    if (options.remove_stop_words && stop) continue;
    w.token.term = TermOf(w.token.term, language, options);
    if (!w.token.term.empty()) tokens.push_back(std::move(w.token));
  }
  return tokens;
}

}  // namespace

Language DetectLanguage(std::string_view text) {
  Evidence evidence;
  Collect(text, /*match_stop_words=*/false, /*words=*/nullptr, &evidence);
  return evidence.Decide();
}

std::vector<AnalyzedToken> Analyze(std::string_view text, const AnalyzerOptions& options,
                                   Language* detected) {
  std::vector<CollectedWord> words;
  Evidence evidence;
  Collect(text, options.remove_stop_words, &words, &evidence);
  const Language language = evidence.Decide();
  if (detected != nullptr) *detected = language;
  return Finish(language, options, &words);
}

std::vector<AnalyzedToken> Analyze(std::string_view text, Language language,
                                   const AnalyzerOptions& options) {
  std::vector<CollectedWord> words;
  Collect(text, options.remove_stop_words, &words, /*evidence=*/nullptr);
  return Finish(language, options, &words);
}

std::string TermAs(std::string_view text, const AnalyzedToken& token, Language language,
                   const AnalyzerOptions& options) {
  const std::string_view word = text.substr(token.begin, token.end - token.begin);
  const bool ascii = std::all_of(word.begin(), word.end(),
                                 [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  std::string lower;
  FoldCase(word, ascii, &lower);
  return TermOf(lower, language, options);
}

std::string PortugueseTextForm(std::string_view term) {
  std::string form = "\x1Fpt:";
  form += term;
  return form;
}

}  // namespace engram
