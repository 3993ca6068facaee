// Snowball stemming (libstemmer) for English and Portuguese, with the
// accent handling the analyzer needs: the returned stem is always
// accent-folded, and a word gives the same stem whether or not it was
// written with its accents ("configurações" and "configuracoes" both give
// "configur").
//
// English: the accent-folded word is stemmed (the English stemmer only knows
// ASCII letters, so "café" and "cafe" both give "cafe").
//
// Portuguese: the stemmer needs accents to recognise many suffixes ("ação",
// "ções", "ância", "ável", "ávamos"; "configuração" -> "configur" but
// "configuracao" -> "configuraca"). So the accented form is stemmed and the
// stem folded afterwards. A word written entirely without accents first gets
// them restored on a known suffix ("configuracoes" -> "configurações",
// "falavamos" -> "falávamos"; see kPortugueseSuffixes in stemmer.cc), so
// unaccented text and queries still meet accented text. Accents elsewhere in
// an unaccented word cannot be restored, so a few pairs still differ
// ("mãe" -> "ma", "mae" -> "mae").
//
// Thread-safe: each thread lazily creates its own sb_stemmer per language
// (a sb_stemmer is not thread-safe) and its own memo of recent stems (1 MiB
// per language used); both are freed when the thread exits.
#ifndef ENGRAM_SRC_TEXT_STEMMER_H_
#define ENGRAM_SRC_TEXT_STEMMER_H_

#include <string>
#include <string_view>

#include "src/text/language.h"

namespace engram {

// Stem of `lower_word`, which must be valid UTF-8, lower-case (case-folded)
// and may carry accents. The result is accent-folded; it is empty only when
// the folded word is empty. If libstemmer fails (out of memory) the folded
// word is returned unstemmed.
std::string Stem(std::string_view lower_word, Language language);

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_STEMMER_H_
