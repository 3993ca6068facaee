// The languages the text pipeline knows: English and Portuguese. Each has a
// stop-word list (stop_words.h) and a Snowball stemmer (stemmer.h); which one
// a text gets is decided per text by DetectLanguage (analyzer.h).
// Pure values and functions, thread-safe.
#ifndef ENGRAM_SRC_TEXT_LANGUAGE_H_
#define ENGRAM_SRC_TEXT_LANGUAGE_H_

#include <string_view>

namespace engram {

enum class Language { kEnglish, kPortuguese };

// ISO 639-1 code: "en" or "pt".
std::string_view LanguageName(Language language);

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_LANGUAGE_H_
