#include "src/text/stemmer.h"

#include <libstemmer.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "src/common/hash.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"

namespace engram {
namespace {

struct StemmerDeleter {
  void operator()(sb_stemmer* stemmer) const { sb_stemmer_delete(stemmer); }
};
using StemmerPtr = std::unique_ptr<sb_stemmer, StemmerDeleter>;

sb_stemmer* ThreadStemmer(Language language) {
  if (language == Language::kPortuguese) {
    thread_local StemmerPtr portuguese(sb_stemmer_new("portuguese", "UTF_8"));
    return portuguese.get();
  }
  thread_local StemmerPtr english(sb_stemmer_new("english", "UTF_8"));
  return english.get();
}

// Unaccented spellings of Portuguese suffixes the Snowball stemmer only
// recognises with their accents, longest first. Each is unambiguous: the
// unaccented spelling is not itself a common Portuguese ending ("areis" and
// "ara" are left alone, since "falareis" and "falara" are real forms).
struct SuffixAccent {
  std::string_view plain;
  std::string_view accented;
};
constexpr SuffixAccent kPortugueseSuffixes[] = {
    {"ariamos", "aríamos"}, {"eriamos", "eríamos"}, {"iriamos", "iríamos"}, {"assemos", "ássemos"},
    {"essemos", "êssemos"}, {"issemos", "íssemos"}, {"arieis", "aríeis"},   {"erieis", "eríeis"},
    {"irieis", "iríeis"},   {"asseis", "ásseis"},   {"esseis", "ésseis"},   {"isseis", "ísseis"},
    {"avamos", "ávamos"},   {"ancias", "âncias"},   {"encias", "ências"},   {"iamos", "íamos"},
    {"ancia", "ância"},     {"encia", "ência"},     {"aveis", "áveis"},     {"iveis", "íveis"},
    {"ieis", "íeis"},       {"avel", "ável"},       {"ivel", "ível"},       {"coes", "ções"},
    {"cao", "ção"},         {"oes", "ões"},         {"aes", "ães"},         {"ao", "ão"},
};

// For an all-ASCII word, the word with its suffix accents restored; any
// other word unchanged. A suffix must leave at least two letters of stem.
std::string RestorePortugueseAccents(std::string_view word) {
  if (!IsAscii(word)) return std::string(word);
  for (const SuffixAccent& s : kPortugueseSuffixes) {
    if (word.size() >= s.plain.size() + 2 && word.ends_with(s.plain)) {
      std::string out(word.substr(0, word.size() - s.plain.size()));
      out.append(s.accented);
      return out;
    }
  }
  return std::string(word);
}

// Runs `stemmer` on `word`; `word` itself when the stemmer fails.
std::string RunStemmer(sb_stemmer* stemmer, std::string_view word) {
  if (stemmer == nullptr) return std::string(word);
  const sb_symbol* stem = sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word.data()),
                                          static_cast<int>(word.size()));
  if (stem == nullptr) return std::string(word);
  return std::string(reinterpret_cast<const char*>(stem),
                     static_cast<size_t>(sb_stemmer_length(stemmer)));
}

std::string StemUncached(std::string_view lower_word, Language language) {
  if (language == Language::kEnglish) {
    if (IsAscii(lower_word)) {
      return RunStemmer(ThreadStemmer(language), lower_word);
    }
    return RunStemmer(ThreadStemmer(language), FoldAccents(lower_word));
  }
  const std::string accented = RestorePortugueseAccents(lower_word);
  return FoldAccents(RunStemmer(ThreadStemmer(language), accented));
}

// Per-thread memo of word -> stem: a direct-mapped cache of kSlots 64-byte
// slots (one cache line each), so a lookup is one hash and one memory access
// and a miss simply overwrites its slot. Word frequencies are Zipfian, so
// most words of a text were stemmed before and skip the Snowball run.
// Trade-off: 1 MiB of address space per language per thread, allocated on
// first use as zero pages (calloc), so memory is taken only where slots are
// written (a one-shot search touches a few pages, not all 256); words or
// stems longer than a slot holds bypass the memo.
class StemMemo {
 public:
  StemMemo() : slots_(static_cast<Slot*>(std::calloc(kSlots, sizeof(Slot)))) {}

  std::string Get(std::string_view lower_word, Language language) {
    if (lower_word.size() > kMaxKey || !slots_) return StemUncached(lower_word, language);
    Slot& slot = slots_.get()[Hash(lower_word) & (kSlots - 1)];
    if (slot.key_size == lower_word.size() &&
        std::memcmp(slot.key, lower_word.data(), lower_word.size()) == 0) {
      return std::string(slot.stem, slot.stem_size);
    }
    std::string stem = StemUncached(lower_word, language);
    if (stem.size() <= kMaxStem) {
      slot.key_size = static_cast<uint8_t>(lower_word.size());
      slot.stem_size = static_cast<uint8_t>(stem.size());
      std::memcpy(slot.key, lower_word.data(), lower_word.size());
      std::memcpy(slot.stem, stem.data(), stem.size());
    }
    return stem;
  }

 private:
  static constexpr size_t kSlots = size_t{1} << 14;
  static constexpr size_t kMaxKey = 31;
  static constexpr size_t kMaxStem = 31;

  // All zero bytes, a slot maps "" to "", which is correct.
  struct Slot {
    uint8_t key_size;
    uint8_t stem_size;
    char key[kMaxKey];
    char stem[kMaxStem];
  };
  static_assert(sizeof(Slot) == 64);

  static uint64_t Hash(std::string_view s) { return Fnv1a64(s); }

  struct Free {
    void operator()(Slot* slots) const { std::free(slots); }
  };
  std::unique_ptr<Slot, Free> slots_;  // kSlots of them; null if calloc failed
};

}  // namespace

std::string Stem(std::string_view lower_word, Language language) {
  if (language == Language::kPortuguese) {
    thread_local StemMemo portuguese;
    return portuguese.Get(lower_word, language);
  }
  thread_local StemMemo english;
  return english.Get(lower_word, language);
}

}  // namespace engram
