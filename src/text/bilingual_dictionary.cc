#include "src/text/bilingual_dictionary.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include "src/common/file_contents.h"
#include "src/common/private_files.h"
#include "src/text/analyzer.h"
#include "src/text/dictzip_file.h"

namespace engram {
namespace {

// The directory Debian's dictd packages install into.
constexpr char kDebianDictDir[] = "/usr/share/dictd";
constexpr char kPortugueseEnglish[] = "freedict-por-eng";
constexpr char kEnglishPortuguese[] = "freedict-eng-por";

// dictd's base 64 number: digits A-Z a-z 0-9 + /, most significant first.
bool DecodeDictNumber(std::string_view digits, uint64_t* out) {
  uint64_t value = 0;
  if (digits.empty() || digits.size() > 10) return false;
  for (const char c : digits) {
    int d = -1;
    if (c >= 'A' && c <= 'Z') d = c - 'A';
    if (c >= 'a' && c <= 'z') d = c - 'a' + 26;
    if (c >= '0' && c <= '9') d = c - '0' + 52;
    if (c == '+') d = 62;
    if (c == '/') d = 63;
    if (d < 0) return false;
    value = value * 64 + static_cast<uint64_t>(d);
  }
  *out = value;
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// What a dictionary's table is made from, as its stamp line: the table's
// format, the analyser, the translations kept per term, and the stamps
// (FileContents::Stamp) of the index and the text. Empty when either file
// cannot be seen (Load then says why).
std::string SourceStamp(const std::string& index_path, const std::string& text_path) {
  std::string stamp = "engram dictionary terms 1; analyzer " + std::to_string(kAnalyzerVersion) +
                      "; translations " + std::to_string(BilingualDictionary::kMaxTranslations);
  for (const std::string& path : {index_path, text_path}) {
    const auto file = FileContents::StampOf(path);
    if (!file.ok()) return {};
    stamp += "; " + file->ToString();
  }
  return stamp;
}

// The user's cache directory for engram: $XDG_CACHE_HOME/engram, else
// ~/.cache/engram; empty when neither variable is set.
std::string CacheDirectory() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg != '\0') {
    return std::string(xdg) + "/engram";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/engram";
  }
  return {};
}

// The one term `text` analyses to in `language`, or empty.
std::string OneTerm(std::string_view text, Language language) {
  std::vector<AnalyzedToken> tokens = Analyze(text, language);
  return tokens.size() == 1 ? std::move(tokens[0].term) : std::string();
}

}  // namespace

std::string BilingualDictionary::EntryTerm(std::string_view entry) const {
  const size_t first_end = entry.find('\n');
  if (first_end == std::string_view::npos) return {};
  // The headword line: the word, then its pronunciation between slashes.
  std::string_view headword = entry.substr(0, first_end);
  headword = Trim(headword.substr(0, headword.find('/')));
  if (headword.empty() || headword.find(' ') != std::string_view::npos) return {};
  return OneTerm(headword, from_);
}

void BilingualDictionary::AddTranslationsLocked(std::string_view entry,
                                                const std::string& term) const {
  const size_t first_end = entry.find('\n');
  Entry& found = by_term_[term];
  std::vector<std::string>& translations = found.terms;
  std::string_view rest = entry.substr(first_end + 1);
  while (!rest.empty() && translations.size() < kMaxTranslations) {
    const size_t end = std::min(rest.find('\n'), rest.size());
    std::string_view line = Trim(rest.substr(0, end));
    rest.remove_prefix(std::min(end + 1, rest.size()));
    // "2. language, tongue": the sense number goes.
    const size_t dot = line.find(". ");
    if (dot != std::string_view::npos && dot > 0 &&
        std::all_of(line.begin(), line.begin() + static_cast<std::ptrdiff_t>(dot),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
      line.remove_prefix(dot + 2);
    }
    while (!line.empty() && translations.size() < kMaxTranslations) {
      const size_t cut = std::min(line.find_first_of(",;"), line.size());
      const std::string_view word = Trim(line.substr(0, cut));
      const std::string translation = OneTerm(word, to_);
      if (!translation.empty() &&
          std::find(translations.begin(), translations.end(), translation) == translations.end()) {
        translations.push_back(translation);
        found.words.emplace_back(word);
      }
      line.remove_prefix(std::min(cut + 1, line.size()));
    }
  }
  if (translations.empty()) by_term_.erase(term);
}

Result<BilingualDictionary> BilingualDictionary::Load(const std::string& dir,
                                                      const std::string& name, Language from,
                                                      Language to) {
  const std::string index_path = (std::filesystem::path(dir) / (name + ".index")).string();
  const std::string text_path = (std::filesystem::path(dir) / (name + ".dict.dz")).string();
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<FileContents> index, FileContents::Read(index_path));
  ENGRAM_ASSIGN_OR_RETURN(DictzipFile text, DictzipFile::Open(text_path));
  BilingualDictionary dictionary(from, to, std::move(text));
  const size_t text_size = dictionary.text_->size();
  std::string_view lines = index->Bytes();
  for (size_t line_no = 1; !lines.empty(); ++line_no) {
    const size_t end = std::min(lines.find('\n'), lines.size());
    const std::string_view line = lines.substr(0, end);
    lines.remove_prefix(std::min(end + 1, lines.size()));
    if (line.empty()) continue;
    const size_t tab1 = line.find('\t');
    const size_t tab2 = tab1 == std::string_view::npos ? tab1 : line.find('\t', tab1 + 1);
    uint64_t offset = 0;
    uint64_t length = 0;
    if (tab2 == std::string_view::npos ||
        !DecodeDictNumber(line.substr(tab1 + 1, tab2 - tab1 - 1), &offset) ||
        !DecodeDictNumber(line.substr(tab2 + 1), &length) || offset > text_size ||
        length > text_size - offset) {
      return InvalidArgument("dictionary: " + index_path + ":" + std::to_string(line_no) +
                             ": not \"headword TAB offset TAB length\" within the text");
    }
    if (line.substr(0, 8) == "00databa") continue;  // the dictionary's own metadata
    const std::string_view headword = line.substr(0, tab1);
    if (headword.find(' ') != std::string_view::npos) continue;  // a phrase: no headword
    // A headword that does not start with two ASCII letters or digits is
    // analysed now (a few hundred of por-eng's) and filed under its term.
    std::string key = BucketKey(headword);
    if (key.empty()) key = BucketKey(OneTerm(headword, from));
    dictionary.buckets_[key].emplace_back(offset, length);
  }
  return dictionary;
}

Result<BilingualDictionary> BilingualDictionary::LoadThroughTable(const std::string& dir,
                                                                  const std::string& name,
                                                                  Language from, Language to,
                                                                  const std::string& cache_dir) {
  const std::string stamp =
      SourceStamp((std::filesystem::path(dir) / (name + ".index")).string(),
                  (std::filesystem::path(dir) / (name + ".dict.dz")).string());
  const std::string table_path = (std::filesystem::path(cache_dir) / (name + ".terms")).string();
  if (!stamp.empty()) {
    if (auto table = DictionaryTermTable::Open(table_path, stamp); table.ok()) {
      return BilingualDictionary(from, to, std::nullopt, std::move(*table));
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(BilingualDictionary dictionary, Load(dir, name, from, to));
  if (!stamp.empty() && CreatePrivateDirectories(cache_dir).ok()) {
    // Without a table the next process analyses again; nothing else is lost.
    dictionary.WriteTable(table_path, stamp).IgnoreError();
  }
  return dictionary;
}

Status BilingualDictionary::WriteTable(const std::string& path, std::string_view stamp) const {
  size();  // analyses every entry
  std::lock_guard lock(*mutex_);
  const std::map<std::string, Entry> sorted(by_term_.begin(), by_term_.end());
  return DictionaryTermTable::Write(path, stamp, sorted);
}

std::string BilingualDictionary::BucketKey(std::string_view word) {
  const auto alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const auto lower = [](char c) {
    return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  };
  if (word.size() >= 2 && alnum(word[0]) && alnum(word[1])) {
    return {lower(word[0]), lower(word[1])};
  }
  if (word.size() == 1 && alnum(word[0])) return {lower(word[0])};
  return {};
}

void BilingualDictionary::AnalyseHeadwordsLocked(Bucket* bucket) const {
  for (const auto& [offset, length] : *bucket) {
    // Load checked every entry lies within the text; an entry whose chunk
    // does not inflate is left out, as a word without one.
    const Result<std::string> entry = text_->Read(offset, length);
    if (!entry.ok()) continue;
    std::string term = EntryTerm(*entry);
    if (!term.empty()) pending_[std::move(term)].emplace_back(offset, length);
  }
  *bucket = {};
}

void BilingualDictionary::AnalyseEntriesLocked(const std::string& term) const {
  const auto pending = pending_.find(term);
  if (pending == pending_.end()) return;
  for (const auto& [offset, length] : pending->second) {
    const Result<std::string> entry = text_->Read(offset, length);
    if (entry.ok()) AddTranslationsLocked(*entry, term);
  }
  pending_.erase(pending);
}

const BilingualDictionary::Entry* BilingualDictionary::FindLocked(std::string_view term) const {
  if (table_) {
    const std::string key(term);
    if (const auto it = by_term_.find(key); it != by_term_.end()) return &it->second;
    Entry found;
    if (!table_->Find(term, &found)) return nullptr;
    return &by_term_.emplace(key, std::move(found)).first->second;
  }
  const auto bucket = buckets_.find(BucketKey(term));
  if (bucket != buckets_.end()) AnalyseHeadwordsLocked(&bucket->second);
  const std::string key(term);
  AnalyseEntriesLocked(key);
  const auto it = by_term_.find(key);
  return it == by_term_.end() ? nullptr : &it->second;
}

size_t BilingualDictionary::size() const {
  if (table_) return table_->size();
  std::lock_guard lock(*mutex_);
  for (auto& [key, bucket] : buckets_) AnalyseHeadwordsLocked(&bucket);
  while (!pending_.empty()) AnalyseEntriesLocked(pending_.begin()->first);
  return by_term_.size();
}

const BilingualDictionary* BilingualDictionary::LoadInstalled(const char* name, Language from,
                                                              Language to) {
  const std::string cache_dir = CacheDirectory();
  auto loaded = cache_dir.empty() ? Load(kDebianDictDir, name, from, to)
                                  : LoadThroughTable(kDebianDictDir, name, from, to, cache_dir);
  return new BilingualDictionary(loaded.ok() ? std::move(*loaded)
                                             : BilingualDictionary(from, to, std::nullopt));
}

const BilingualDictionary& BilingualDictionary::PortugueseEnglish() {
  static const BilingualDictionary* dictionary =
      LoadInstalled(kPortugueseEnglish, Language::kPortuguese, Language::kEnglish);
  return *dictionary;
}

const BilingualDictionary& BilingualDictionary::EnglishPortuguese() {
  static const BilingualDictionary* dictionary =
      LoadInstalled(kEnglishPortuguese, Language::kEnglish, Language::kPortuguese);
  return *dictionary;
}

const std::vector<std::string>& BilingualDictionary::Translations(std::string_view term) const {
  static const std::vector<std::string> none;
  std::lock_guard lock(*mutex_);
  const Entry* entry = FindLocked(term);
  return entry == nullptr ? none : entry->terms;
}

std::string BilingualDictionary::Gloss(std::string_view text) const {
  std::string gloss;
  std::lock_guard lock(*mutex_);
  for (const AnalyzedToken& token : Analyze(text, from_)) {
    const Entry* entry = FindLocked(token.term);
    if (!gloss.empty()) gloss += ' ';
    if (entry != nullptr) {
      gloss += entry->words.front();
    } else {
      gloss += text.substr(token.begin, token.end - token.begin);
    }
  }
  return gloss;
}

}  // namespace engram
