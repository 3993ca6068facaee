// A Portuguese-to-English dictionary for queries (docs/ARCHITECTURE.md, "A
// query term has forms"): FreeDict's por-eng as Debian installs it
// (dict-freedict-por-eng), in dictd's format: `NAME.index`, one line per
// headword, "headword TAB offset TAB length" with offset and length in
// dictd's base 64, into `NAME.dict.dz`, the gzip'd text of the entries. An
// entry is its headword line ("idioma /ˌidiˈomɐ/") followed by lines of
// translations, comma- or semicolon-separated, numbered when there are
// several senses ("1. idiom", "2. language, tongue").
//
// A headword of one Portuguese term (as the analyser stems it; stop words
// and phrases are left out) is mapped to the translations that are one
// English term each, in the entry's order, at most kMaxTranslations; two
// headwords with one stem share a list. Each translation is kept as the
// entry writes it too, for a word-by-word English reading of a Portuguese
// text (Gloss) that an English-only embedding model can read.
//
// Thread-safety: immutable after Load; PortugueseEnglish() loads once,
// thread-safely.
#ifndef ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_
#define ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"

namespace engram {

class BilingualDictionary {
 public:
  // Translations kept per Portuguese term: the first senses, which
  // FreeDict lists first, and not the long tail that matches anything.
  static constexpr size_t kMaxTranslations = 3;

  // Reads `dir`/`name`.index and `dir`/`name`.dict.dz. NotFound when
  // either is missing; InvalidArgument naming the file and line of an index
  // line that does not parse or points past the text; IOError for a text
  // that does not decompress.
  static Result<BilingualDictionary> Load(const std::string& dir, const std::string& name);

  // Debian's freedict-por-eng from /usr/share/dictd, read on first use;
  // empty when the package is not installed.
  static const BilingualDictionary& PortugueseEnglish();

  // English terms translating the Portuguese term `term`; empty when it
  // has none.
  const std::vector<std::string>& Translations(std::string_view term) const;

  // `portuguese`, analysed as Portuguese (stop words dropped), word by word
  // in English: each term's first translation as the entry writes it, a
  // term without one as the text writes it, joined by spaces ("Qual é a
  // minha preferência de idioma?" -> "preference idiom"). Empty when the
  // text has no term.
  std::string Gloss(std::string_view portuguese) const;

  // Portuguese terms with translations.
  size_t size() const { return by_term_.size(); }

 private:
  void AddEntry(std::string_view entry);

  // A Portuguese term's translations: English terms, and the words they
  // were analysed from, in the same order.
  struct Entry {
    std::vector<std::string> terms;
    std::vector<std::string> words;
  };
  std::unordered_map<std::string, Entry> by_term_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_
