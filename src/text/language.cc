#include "src/text/language.h"

namespace engram {

std::string_view LanguageName(Language language) {
  switch (language) {
    case Language::kEnglish:
      return "en";
    case Language::kPortuguese:
      return "pt";
  }
  return "en";
}

}  // namespace engram
