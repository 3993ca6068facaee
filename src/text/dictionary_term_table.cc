#include "src/text/dictionary_term_table.h"

#include <algorithm>

#include "src/common/private_files.h"

namespace engram {
namespace {

constexpr char kUnit = '\x1f';    // between a term and each translation
constexpr char kRecord = '\x1e';  // between a translation and its word

bool HoldsSeparator(std::string_view s) {
  return s.find_first_of(std::string_view("\n\x1e\x1f", 3)) != std::string_view::npos;
}

// The term of `line`: what comes before its first unit separator.
std::string_view TermOf(std::string_view line) { return line.substr(0, line.find(kUnit)); }

}  // namespace

Status DictionaryTermTable::Write(const std::string& path, std::string_view stamp,
                                  const std::map<std::string, Translations>& entries) {
  if (HoldsSeparator(stamp)) return InvalidArgument("dictionary table: a stamp holds a separator");
  std::string text(stamp);
  text += '\n';
  for (const auto& [term, translations] : entries) {
    if (HoldsSeparator(term)) {
      return InvalidArgument("dictionary table: the term '" + term + "' holds a separator");
    }
    text += term;
    for (size_t i = 0; i < translations.terms.size(); ++i) {
      const std::string& word = i < translations.words.size() ? translations.words[i] : "";
      if (HoldsSeparator(translations.terms[i]) || HoldsSeparator(word)) {
        return InvalidArgument("dictionary table: a translation of '" + term +
                               "' holds a separator");
      }
      text += kUnit;
      text += translations.terms[i];
      text += kRecord;
      text += word;
    }
    text += '\n';
  }
  return WriteFileAtomically(path, text);
}

Result<DictionaryTermTable> DictionaryTermTable::Open(const std::string& path,
                                                      std::string_view stamp) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<FileContents> file, FileContents::Map(path));
  const std::string_view bytes = file->Bytes();
  const size_t stamp_end = bytes.find('\n');
  if (stamp_end == std::string_view::npos || bytes.substr(0, stamp_end) != stamp) {
    return FailedPrecondition("dictionary table '" + path + "': made from other files");
  }
  const std::string_view body = bytes.substr(stamp_end + 1);
  if (!body.empty() && body.back() != '\n') {
    return FailedPrecondition("dictionary table '" + path + "': its last line is cut short");
  }
  return DictionaryTermTable(std::move(file), body);
}

bool DictionaryTermTable::Find(std::string_view term, Translations* out) const {
  // Binary search over the lines: [lo, hi) always starts at a line's
  // start and ends at one; the line holding the middle byte is compared.
  size_t lo = 0;
  size_t hi = body_.size();
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    const size_t before = mid == lo ? std::string_view::npos : body_.rfind('\n', mid - 1);
    const size_t start = before == std::string_view::npos || before < lo ? lo : before + 1;
    const size_t end = body_.find('\n', mid);  // every line ends with LF
    const std::string_view line = body_.substr(start, end - start);
    const std::string_view key = TermOf(line);
    if (key < term) {
      lo = end + 1;
    } else if (term < key) {
      hi = start;
    } else {
      *out = {};
      std::string_view rest = line.substr(std::min(key.size() + 1, line.size()));
      while (!rest.empty()) {
        const std::string_view pair = rest.substr(0, rest.find(kUnit));
        rest.remove_prefix(std::min(pair.size() + 1, rest.size()));
        const size_t split = pair.find(kRecord);
        out->terms.emplace_back(pair.substr(0, split));
        out->words.emplace_back(split == std::string_view::npos ? std::string_view()
                                                                : pair.substr(split + 1));
      }
      return true;
    }
  }
  return false;
}

size_t DictionaryTermTable::size() const {
  return static_cast<size_t>(std::count(body_.begin(), body_.end(), '\n'));
}

}  // namespace engram
