#include "src/text/stop_words.h"

#include "src/common/hash.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>

namespace engram {
namespace {

// clang-format off
// NLTK's English list (minus "won" and "ma", which are content words here),
// plus modal verbs, wh- words and common contractions.
constexpr std::string_view kEnglish[] = {
    // Pronouns.
    "i", "me", "my", "myself", "we", "our", "ours", "ourselves", "you", "your",
    "yours", "yourself", "yourselves", "he", "him", "his", "himself", "she",
    "her", "hers", "herself", "it", "its", "itself", "they", "them", "their",
    "theirs", "themselves",
    // Question and relative words.
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "whatever", "whenever", "wherever", "whoever", "whichever", "whether",
    // Demonstratives.
    "this", "that", "these", "those",
    // Auxiliary and modal verbs.
    "am", "is", "are", "was", "were", "be", "been", "being", "have", "has",
    "had", "having", "do", "does", "did", "doing", "will", "would", "shall",
    "should", "can", "could", "might", "must", "ought",
    // Articles, conjunctions, determiners.
    "a", "an", "the", "and", "but", "if", "or", "because", "as", "until",
    "while", "nor", "not", "no", "so", "than", "too", "very", "only", "own",
    "same", "such", "both", "each", "few", "more", "most", "other", "some",
    "any", "all",
    // Prepositions and adverbs of place and time.
    "of", "at", "by", "for", "with", "about", "against", "between", "into",
    "through", "during", "before", "after", "above", "below", "to", "from",
    "up", "down", "in", "out", "on", "off", "over", "under", "again",
    "further", "then", "once", "here", "there", "just", "now", "also", "yet",
    "else", "ever",
    // Fragments left by splitting contractions on the apostrophe.
    "s", "t", "d", "ll", "m", "o", "re", "ve", "y", "don", "ain", "aren",
    "couldn", "didn", "doesn", "hadn", "hasn", "haven", "isn", "mightn",
    "mustn", "needn", "shan", "shouldn", "wasn", "weren", "wouldn",
    // Whole contractions (whitespace tokenisation keeps the apostrophe).
    "i'm", "i've", "i'd", "i'll", "you're", "you've", "you'll", "you'd",
    "he's", "she's", "it's", "we're", "we've", "we'll", "we'd", "they're",
    "they've", "they'll", "they'd", "that's", "there's", "what's", "where's",
    "who's", "how's", "let's", "isn't", "aren't", "wasn't", "weren't",
    "don't", "doesn't", "didn't", "haven't", "hasn't", "hadn't", "won't",
    "wouldn't", "can't", "cannot", "couldn't", "shouldn't", "mustn't",
    "shan't", "mightn't", "needn't",
};

// Portuguese function words, accent-folded ("nao" is "não", "e" is also
// "é", "voce" is "você").
constexpr std::string_view kPortuguese[] = {
    // Articles and their contractions with prepositions.
    "a", "o", "as", "os", "um", "uma", "uns", "umas", "ao", "aos", "da", "das",
    "do", "dos", "de", "na", "nas", "no", "nos", "num", "numa", "dum", "duma",
    "pelo", "pela", "pelos", "pelas", "pra", "neste", "nesta", "nestes",
    "nestas", "nesse", "nessa", "nesses", "nessas", "nisso", "nisto",
    "naquele", "naquela", "deste", "desta", "destes", "destas", "desse",
    "dessa", "desses", "dessas", "disso", "disto", "daquele", "daquela",
    // Pronouns, possessives, demonstratives.
    "eu", "tu", "ele", "ela", "vos", "eles", "elas", "voce", "voces", "me",
    "te", "se", "lhe", "lhes", "mim", "ti", "si", "comigo", "contigo",
    "conosco", "meu", "minha", "meus", "minhas", "teu", "tua", "teus", "tuas",
    "seu", "sua", "seus", "suas", "nosso", "nossa", "nossos", "nossas", "dele",
    "dela", "deles", "delas", "este", "esta", "estes", "estas", "esse", "essa",
    "esses", "essas", "aquele", "aquela", "aqueles", "aquelas", "isto", "isso",
    "aquilo",
    // Question and relative words.
    "que", "quando", "onde", "aonde", "quem", "qual", "quais", "como",
    "porque", "cade", "quanto", "quanta", "quantos", "quantas", "cujo", "cuja",
    // Conjunctions and prepositions.
    "e", "ou", "mas", "nem", "porem", "contudo", "entao", "pois", "com", "sem",
    "sob", "sobre", "para", "por", "entre", "ate", "desde", "apos", "contra",
    // Adverbs.
    "nao", "sim", "ja", "ainda", "tambem", "mais", "menos", "muito", "muita",
    "muitos", "muitas", "pouco", "tao", "tanto", "so", "la", "aqui", "ali",
    "ai", "assim",
    // Quantifiers and indefinites.
    "todo", "toda", "todos", "todas", "tudo", "algum", "alguma", "alguns",
    "algumas", "nenhum", "nenhuma", "outro", "outra", "outros", "outras",
    "cada", "qualquer", "mesmo", "mesma", "alguem", "ninguem", "nada",
    // Forms of ser, estar, ter and haver.
    "ser", "sou", "somos", "sao", "era", "eram", "foi", "fui", "fomos",
    "foram", "sera", "seria", "seja", "sejam", "sido", "sendo", "fosse",
    "estar", "estou", "estamos", "estao", "estava", "estavam", "esteve",
    "estive", "ter", "tenho", "tem", "temos", "tinha", "tinham", "teve",
    "tive", "tido", "tenha", "ha", "houve", "haver", "havia",
};
// clang-format on

constexpr uint8_t kEnglishBit = 1;
constexpr uint8_t kPortugueseBit = 2;

// Open-addressing hash set over both lists, built once. Lookups run for
// every word the analyzer sees, so this avoids std::unordered_map's
// pointer chasing: one hash, then a short linear probe in a flat array.
class StopWordTable {
 public:
  StopWordTable() {
    for (std::string_view w : kEnglish) Insert(w, kEnglishBit);
    for (std::string_view w : kPortuguese) Insert(w, kPortugueseBit);
  }

  uint8_t Find(std::string_view word) const {
    for (size_t i = Hash(word) & kMask;; i = (i + 1) & kMask) {
      const Entry& e = entries_[i];
      if (e.bits == 0) return 0;
      if (e.word == word) return e.bits;
    }
  }

 private:
  // Power of two, at least 4x the number of entries (probes stay short).
  static constexpr size_t kSize = 2048;
  static constexpr size_t kMask = kSize - 1;
  static_assert(kSize >= 4 * (std::size(kEnglish) + std::size(kPortuguese)));

  struct Entry {
    std::string_view word;
    uint8_t bits = 0;
  };

  static uint64_t Hash(std::string_view s) { return Fnv1a64(s); }

  void Insert(std::string_view word, uint8_t bit) {
    for (size_t i = Hash(word) & kMask;; i = (i + 1) & kMask) {
      Entry& e = entries_[i];
      if (e.bits == 0 || e.word == word) {
        e.word = word;
        e.bits |= bit;
        return;
      }
    }
  }

  std::array<Entry, kSize> entries_;
};

const StopWordTable& Table() {
  static const StopWordTable table;
  return table;
}

// Longest entry in bytes; longer words skip the hash lookup.
constexpr size_t MaxLength() {
  size_t n = 0;
  for (std::string_view w : kEnglish) n = w.size() > n ? w.size() : n;
  for (std::string_view w : kPortuguese) n = w.size() > n ? w.size() : n;
  return n;
}

}  // namespace

StopWordMatch MatchStopWord(std::string_view folded_lower_word) {
  StopWordMatch match;
  if (folded_lower_word.empty() || folded_lower_word.size() > MaxLength()) {
    return match;
  }
  const uint8_t bits = Table().Find(folded_lower_word);
  match.english = (bits & kEnglishBit) != 0;
  match.portuguese = (bits & kPortugueseBit) != 0;
  return match;
}

bool IsStopWord(std::string_view folded_lower_word) {
  const StopWordMatch match = MatchStopWord(folded_lower_word);
  return match.english || match.portuguese;
}

std::span<const std::string_view> EnglishStopWords() { return kEnglish; }

std::span<const std::string_view> PortugueseStopWords() { return kPortuguese; }

}  // namespace engram
