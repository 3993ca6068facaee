// DictionaryTermTable: a bilingual dictionary analysed once and kept in a
// file, so a process that looks up a few query terms (a one-shot `engram
// search`) does not read, inflate and stem the dictionary to find them
// (docs/ARCHITECTURE.md, "One-shot processes").
//
// The file is text. Its first line is the stamp of what it was made from
// (the format, the analyser's version, the source files' stamps:
// BilingualDictionary writes it); then one line per
// source-language term, sorted by bytes:
//
//   TERM US TRANSLATION RS WORD US TRANSLATION RS WORD ... LF
//
// (US = 0x1f, RS = 0x1e): the term's translations in the dictionary's
// order, each with the word the entry writes it as. A table is written
// whole and renamed into place (private_files.h), so a reader maps it:
// nothing writes a mapped table in place.
//
// Thread-safety: immutable once opened; Find may be called from any thread.
#ifndef ENGRAM_SRC_TEXT_DICTIONARY_TERM_TABLE_H_
#define ENGRAM_SRC_TEXT_DICTIONARY_TERM_TABLE_H_

#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "src/common/file_contents.h"

namespace engram {

class DictionaryTermTable {
 public:
  // A term's translations and the words they were analysed from, in the
  // same order.
  struct Translations {
    std::vector<std::string> terms;
    std::vector<std::string> words;
  };

  // Writes `entries` under `stamp` (one line, no LF) to `path`, replacing
  // what is there whole. InvalidArgument when the stamp, a term, a
  // translation or a word holds LF, US or RS (nothing is written);
  // IOError naming the file when it cannot be written.
  static Status Write(const std::string& path, std::string_view stamp,
                      const std::map<std::string, Translations>& entries);

  // Maps the table at `path`. NotFound when there is none;
  // FailedPrecondition when its stamp is not `stamp` (made from other
  // files or by another analyser) or it does not end with a whole line;
  // IOError when it cannot be read.
  static Result<DictionaryTermTable> Open(const std::string& path, std::string_view stamp);

  // The translations of `term`, or false when it has none.
  bool Find(std::string_view term, Translations* out) const;

  // Terms in the table.
  size_t size() const;

 private:
  explicit DictionaryTermTable(std::unique_ptr<FileContents> file, std::string_view body)
      : file_(std::move(file)), body_(body) {}

  std::unique_ptr<FileContents> file_;
  std::string_view body_;  // the lines after the stamp
};

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_DICTIONARY_TERM_TABLE_H_
