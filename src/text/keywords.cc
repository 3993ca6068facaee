#include "src/text/keywords.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "src/common/unicode.h"
#include "src/common/utf8.h"
#include "src/text/stop_words.h"

namespace engram {
namespace {

constexpr size_t kMinCodePoints = 3;

bool IsWhitespace(char32_t cp) {
  if (cp < 0x80) {
    return cp == ' ' || (cp >= '\t' && cp <= '\r');
  }
  return u_isUWhiteSpace(static_cast<UChar32>(cp));
}

// True for the code points a token keeps at its ends: letters, combining
// marks and numbers. Everything else (punctuation, symbols) is trimmed.
bool IsKept(char32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9');
  }
  return (U_GET_GC_MASK(static_cast<UChar32>(cp)) & (U_GC_L_MASK | U_GC_M_MASK | U_GC_N_MASK)) != 0;
}

// Byte offset of the start of the code point that ends at `end`.
size_t PreviousCodePointStart(std::string_view text, size_t end) {
  size_t i = end - 1;
  while (i > 0 && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) --i;
  return i;
}

// `token` without leading and trailing code points that are not kept.
std::string_view Trim(std::string_view token) {
  size_t begin = 0;
  while (begin < token.size()) {
    size_t next = begin;
    if (IsKept(NextCodePoint(token, &next))) break;
    begin = next;
  }
  size_t end = token.size();
  while (end > begin) {
    const size_t start = PreviousCodePointStart(token, end);
    size_t pos = start;
    if (IsKept(NextCodePoint(token, &pos))) break;
    end = start;
  }
  return token.substr(begin, end - begin);
}

// The form stop words are stored in: accent-folded, ’ (U+2019) read as '.
std::string StopWordKey(std::string_view keyword) {
  std::string key = FoldAccents(keyword);
  constexpr std::string_view kRightQuote = "\xE2\x80\x99";
  for (size_t pos = key.find(kRightQuote); pos != std::string::npos;
       pos = key.find(kRightQuote, pos + 1)) {
    key.replace(pos, kRightQuote.size(), "'");
  }
  return key;
}

}  // namespace

std::vector<std::string> ExtractKeywords(std::string_view text, size_t max_keywords) {
  if (max_keywords == 0) return {};
  const std::string lower = NfkcCaseFold(text);
  const std::string_view view = lower;
  std::unordered_map<std::string_view, size_t> counts;
  size_t i = 0;
  while (i < view.size()) {
    size_t begin = i;
    size_t next = i;
    if (IsWhitespace(NextCodePoint(view, &next))) {
      i = next;
      continue;
    }
    while (i < view.size()) {
      next = i;
      if (IsWhitespace(NextCodePoint(view, &next))) break;
      i = next;
    }
    const std::string_view token = Trim(view.substr(begin, i - begin));
    if (CodePointCount(token) < kMinCodePoints) continue;
    if (IsStopWord(StopWordKey(token))) continue;
    ++counts[token];
  }
  std::vector<std::pair<std::string_view, size_t>> ranked(counts.begin(), counts.end());
  const auto by_rank = [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
  };
  const size_t keep = std::min(max_keywords, ranked.size());
  std::partial_sort(ranked.begin(), ranked.begin() + keep, ranked.end(), by_rank);
  std::vector<std::string> keywords;
  keywords.reserve(keep);
  for (size_t k = 0; k < keep; ++k) keywords.emplace_back(ranked[k].first);
  return keywords;
}

}  // namespace engram
