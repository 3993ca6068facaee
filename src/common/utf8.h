// UTF-8 checks and code-point iteration. Pure functions, thread-safe.
#ifndef ENGRAM_SRC_COMMON_UTF8_H_
#define ENGRAM_SRC_COMMON_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace engram {

// True when `text` is well-formed UTF-8 (no overlongs, no surrogates, no
// code points above U+10FFFF). On false, `*bad_offset` (when given) is the
// byte offset of the first invalid sequence.
bool IsValidUtf8(std::string_view text, size_t* bad_offset = nullptr);

// Number of code points in valid UTF-8 `text`.
size_t CodePointCount(std::string_view text);

// Decodes the code point at `*pos` of valid UTF-8 `text` and advances `*pos`
// (never past the end, even for a truncated sequence).
char32_t NextCodePoint(std::string_view text, size_t* pos);

// Appends the UTF-8 encoding of `cp` to `out`.
void AppendUtf8(char32_t cp, std::string* out);

// True when every byte of `text` is below 0x80.
bool IsAscii(std::string_view text);

// Lower-cases the ASCII letters of `text` in place; other bytes unchanged.
void LowerAsciiInPlace(std::string* text);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_UTF8_H_
