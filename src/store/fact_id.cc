#include "src/store/fact_id.h"

#include <unicode/uchar.h>

#include "engram/fact.h"
#include "src/common/hash.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"

namespace engram {

std::string NormalizeForId(std::string_view content) {
  const std::string folded = NfkcCaseFold(content);
  std::string out;
  out.reserve(folded.size());
  bool pending_space = false;
  size_t pos = 0;
  while (pos < folded.size()) {
    const size_t start = pos;
    const char32_t cp = NextCodePoint(folded, &pos);
    if (u_isUWhiteSpace(static_cast<UChar32>(cp))) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.append(folded, start, pos - start);
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
