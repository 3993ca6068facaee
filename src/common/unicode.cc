#include "src/common/unicode.h"

#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "src/common/utf8.h"

namespace engram {
namespace {

std::string ToUtf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

icu::UnicodeString FromUtf8(std::string_view text) {
  return icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
}

icu::UnicodeString Normalize(const icu::Normalizer2* n, const icu::UnicodeString& s) {
  UErrorCode err = U_ZERO_ERROR;
  icu::UnicodeString out = n->normalize(s, err);
  return U_SUCCESS(err) ? out : s;
}

const icu::Normalizer2* Get(const icu::Normalizer2* (*getter)(UErrorCode&)) {
  UErrorCode err = U_ZERO_ERROR;
  const icu::Normalizer2* n = getter(err);
  return U_SUCCESS(err) ? n : nullptr;
}

}  // namespace

std::string Nfkc(std::string_view text) {
  if (IsAscii(text)) return std::string(text);
  static const icu::Normalizer2* nfkc = Get(&icu::Normalizer2::getNFKCInstance);
  if (nfkc == nullptr) return std::string(text);
  return ToUtf8(Normalize(nfkc, FromUtf8(text)));
}

std::string NfkcCaseFold(std::string_view text) {
  if (IsAscii(text)) {
    std::string out(text);
    LowerAsciiInPlace(&out);
    return out;
  }
  static const icu::Normalizer2* nfkc = Get(&icu::Normalizer2::getNFKCInstance);
  icu::UnicodeString s = FromUtf8(text);
  if (nfkc != nullptr) s = Normalize(nfkc, s);
  s.foldCase();
  if (nfkc != nullptr) s = Normalize(nfkc, s);
  return ToUtf8(s);
}

std::string FoldAccents(std::string_view text) {
  if (IsAscii(text)) return std::string(text);
  static const icu::Normalizer2* nfd = Get(&icu::Normalizer2::getNFDInstance);
  static const icu::Normalizer2* nfc = Get(&icu::Normalizer2::getNFCInstance);
  if (nfd == nullptr || nfc == nullptr) return std::string(text);
  const icu::UnicodeString decomposed = Normalize(nfd, FromUtf8(text));
  icu::UnicodeString stripped;
  for (int32_t i = 0; i < decomposed.length();) {
    const UChar32 c = decomposed.char32At(i);
    if (u_charType(c) != U_NON_SPACING_MARK) stripped.append(c);
    i += U16_LENGTH(c);
  }
  return ToUtf8(Normalize(nfc, stripped));
}

bool IsBlankText(std::string_view text) {
  const icu::UnicodeString s = FromUtf8(text);
  for (int32_t i = 0; i < s.length();) {
    const UChar32 c = s.char32At(i);
    if (!u_isUWhiteSpace(c) && u_charType(c) != U_FORMAT_CHAR) return false;
    i += U16_LENGTH(c);
  }
  return true;
}

}  // namespace engram
