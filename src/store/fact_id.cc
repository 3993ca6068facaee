#include "src/store/fact_id.h"

#include <unicode/uchar.h>

#include "engram/fact.h"
#include "src/common/hash.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"

namespace engram {
namespace {

// Unicode's White_Space property, with its ASCII members (tab to carriage
// return, and space) answered without a property lookup: most content is
// ASCII, and a search checks the id of every fact it serves.
bool IsWhiteSpace(char32_t cp) {
  if (cp < 0x80) return cp == ' ' || (cp >= '\t' && cp <= '\r');
  return u_isUWhiteSpace(static_cast<UChar32>(cp)) != 0;
}

}  // namespace

std::string NormalizeForId(std::string_view content) {
  // ASCII text is its own NFKC form and folds as lower case, which the loop
  // below does to each ASCII byte (a no-op on folded text).
  const bool ascii = IsAscii(content);
  const std::string folded_text = ascii ? std::string() : NfkcCaseFold(content);
  const std::string_view folded = ascii ? content : std::string_view(folded_text);
  std::string out;
  out.reserve(folded.size());
  bool pending_space = false;
  size_t pos = 0;
  while (pos < folded.size()) {
    const size_t start = pos;
    const auto byte = static_cast<unsigned char>(folded[pos]);
    const char32_t cp = byte < 0x80 ? byte : NextCodePoint(folded, &pos);
    if (byte < 0x80) ++pos;
    if (IsWhiteSpace(cp)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    if (byte < 0x80) {
      out.push_back(static_cast<char>(byte >= 'A' && byte <= 'Z' ? byte - 'A' + 'a' : byte));
    } else {
      out.append(folded.substr(start, pos - start));
    }
  }
  return out;
}

std::string FactId(std::string_view content) {
  return Sha256Hex(NormalizeForId(content)).substr(0, 24);
}

std::string ComputeFactId(std::string_view content) { return FactId(content); }

std::string IdMismatch(std::string_view id, std::string_view content) {
  if (size_t bad = 0; !IsValidUtf8(content, &bad)) {
    return "its content is not valid UTF-8 (byte " + std::to_string(bad + 1) + ")";
  }
  return FactId(content) == id ? std::string() : "its content no longer matches its id";
}

bool LooksLikeIdPrefix(std::string_view text) {
  if (text.empty() || text.size() > 24) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace engram
