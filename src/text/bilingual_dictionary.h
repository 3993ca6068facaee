// A dictionary from one language to the other for queries
// (docs/ARCHITECTURE.md, "A query term has forms"): FreeDict's por-eng or
// eng-por as Debian installs them (dict-freedict-por-eng,
// dict-freedict-eng-por), in dictd's format: `NAME.index`, one line per
// headword, "headword TAB offset TAB length" with offset and length in
// dictd's base 64, into `NAME.dict.dz`, the dictzip'd (or gzip'd) text of
// the entries (dictzip_file.h). An entry is its headword line ("idioma /ˌidiˈomɐ/") followed by
// lines of translations, comma- or semicolon-separated, numbered when there are several senses ("1.
// idiom", "2. language, tongue").
//
// A headword of one term of the source language (as the analyser stems it;
// stop words and phrases are left out) is mapped to the translations that
// are one term each of the target language, in the entry's order, at most
// kMaxTranslations; two headwords with one stem share a list. Each
// translation is kept as the entry writes it too, for a word-by-word
// English reading of a Portuguese text (Gloss) that an English-only
// embedding model can read.
//
// Entries are read and analysed when first looked up, a bucket at a time:
// Load reads the index and files each entry under the first two bytes of its headword,
// lower-cased, which are the first two of its term (the stemmers change
// only the ends of words; a headword that does not start with two ASCII
// letters or digits is analysed at load and filed under its term's). A
// bucket holds every entry of its terms in the index's order, so the lists
// are those of reading the whole dictionary, whatever was looked up before.
// A bucket's headwords are analysed on its first lookup, and an entry's
// translations when its own term is looked up: a query pays for the
// headwords of the few hundred entries its words could be, the translations
// of the few that are its words, and inflating the one or two chunks of
// text they lie in, not for the whole dictionary (about 50 ms on one core).
//
// Debian's dictionaries are read through a table of their analysed terms
// (dictionary_term_table.h) in the user's cache directory
// ($XDG_CACHE_HOME/engram, else ~/.cache/engram): the first process to
// need one after the files or the analyser changed analyses the whole
// dictionary and writes the table; every later one maps the table and
// finds a term in it by binary search, reading nothing else.
//
// Thread-safety: lookups are safe from any thread (the lazily analysed
// entries are guarded by a mutex); PortugueseEnglish() and
// EnglishPortuguese() load once, thread-safely.
#ifndef ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_
#define ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/status.h"
#include "src/text/dictionary_term_table.h"
#include "src/text/dictzip_file.h"
#include "src/text/language.h"

namespace engram {

class BilingualDictionary {
 public:
  // Translations kept per term: the first senses, which
  // FreeDict lists first, and not the long tail that matches anything.
  static constexpr size_t kMaxTranslations = 3;

  // Reads `dir`/`name`.index and `dir`/`name`.dict.dz, headwords in `from`
  // and translations in `to`. NotFound when
  // either is missing; InvalidArgument naming the file and line of an index
  // line that does not parse or points past the text; IOError for a text
  // file that is not gzip or dictzip, or (plain gzip) does not decompress.
  // An entry in a dictzip chunk that does not decompress is left out when
  // its bucket is first looked up.
  static Result<BilingualDictionary> Load(const std::string& dir, const std::string& name,
                                          Language from = Language::kPortuguese,
                                          Language to = Language::kEnglish);

  // The same through the table `cache_dir`/`name`.terms: when the table
  // was made from these files by this analyser it answers every lookup;
  // else the dictionary is loaded and analysed whole, and the table is
  // written (the directory made if missing) for the next process. A table
  // that cannot be written is no error: the dictionary works without it.
  static Result<BilingualDictionary> LoadThroughTable(const std::string& dir,
                                                      const std::string& name, Language from,
                                                      Language to, const std::string& cache_dir);

  // Debian's freedict-por-eng and freedict-eng-por from /usr/share/dictd,
  // each read on first use; empty when its package is not installed.
  static const BilingualDictionary& PortugueseEnglish();
  static const BilingualDictionary& EnglishPortuguese();

  // Terms translating the source-language term `term`; empty when it has
  // none.
  const std::vector<std::string>& Translations(std::string_view term) const;

  // `text`, analysed in the source language (stop words dropped), word by
  // word in the target language: each term's first translation as the
  // entry writes it, a term without one as the text writes it, joined by
  // spaces (Portuguese to English: "Qual é a minha preferência de idioma?"
  // -> "preference idiom"). Empty when the text has no term.
  std::string Gloss(std::string_view text) const;

  // Source-language terms with translations (analyses every entry).
  size_t size() const;

 private:
  BilingualDictionary(Language from, Language to, std::optional<DictzipFile> text,
                      std::optional<DictionaryTermTable> table = std::nullopt)
      : from_(from),
        to_(to),
        mutex_(std::make_unique<std::mutex>()),
        text_(std::move(text)),
        table_(std::move(table)) {}

  // Debian's dictionary `name` from /usr/share/dictd, or an empty one when
  // it is not installed; never freed.
  static const BilingualDictionary* LoadInstalled(const char* name, Language from, Language to);

  // A term's translations: target-language terms, and the words they were
  // analysed from, in the same order.
  using Entry = DictionaryTermTable::Translations;
  // Entries: where each is in text_ (offset, length), in the index's order.
  using Bucket = std::vector<std::pair<size_t, size_t>>;

  // The bucket a headword or a term is filed under: its first two bytes
  // lower-cased when both are ASCII letters or digits, the one byte of a
  // one-byte word, else "" (terms of other letters).
  static std::string BucketKey(std::string_view word);

  // The entry of `term`, analysing its bucket's headwords and then its own
  // entries first; nullptr when it has none. Needs mutex_.
  const Entry* FindLocked(std::string_view term) const;
  // Files each entry of `bucket` in pending_ under its headword's term.
  void AnalyseHeadwordsLocked(Bucket* bucket) const;
  // Moves the pending entries of `term` into by_term_.
  void AnalyseEntriesLocked(const std::string& term) const;
  // The one term of an entry's headword line, or empty.
  std::string EntryTerm(std::string_view entry) const;
  void AddTranslationsLocked(std::string_view entry, const std::string& term) const;
  // Analyses every entry and writes them to a table at `path`.
  Status WriteTable(const std::string& path, std::string_view stamp) const;

  Language from_;
  Language to_;
  std::unique_ptr<std::mutex> mutex_;
  mutable std::optional<DictzipFile> text_;  // the entries; none in an empty dictionary
  mutable std::unordered_map<std::string, Bucket> buckets_;
  // Entries whose headword is analysed and translations are not, by term,
  // in the index's order.
  mutable std::unordered_map<std::string, Bucket> pending_;
  mutable std::unordered_map<std::string, Entry> by_term_;
  // The analysed entries, when read through a table; by_term_ then keeps
  // those looked up.
  std::optional<DictionaryTermTable> table_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_BILINGUAL_DICTIONARY_H_
