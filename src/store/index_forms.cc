#include "src/store/index_forms.h"

#include <string>
#include <unordered_map>
#include <utility>

#include "src/text/analyzer.h"

namespace engram {

std::vector<IndexForm> IndexForms(std::string_view text) {
  Language language = Language::kEnglish;
  std::vector<AnalyzedToken> terms = Analyze(text, {}, &language);
  const bool portuguese = language == Language::kPortuguese;
  std::vector<IndexForm> out;
  out.reserve(portuguese ? 2 * terms.size() : terms.size());
  for (AnalyzedToken& t : terms) {
    std::string marked = portuguese ? PortugueseTextForm(t.term) : std::string();
    out.push_back(IndexForm{std::move(t.term), t.begin, t.end, false});
    if (portuguese) out.push_back(IndexForm{std::move(marked), t.begin, t.end, true});
  }
  return out;
}

FullTextEntry FullTextEntryOf(std::string_view content, std::string_view encoded_tags) {
  FullTextEntry entry;
  std::unordered_map<std::string, size_t> index;
  const auto count = [&](std::string_view text, std::vector<int32_t> FullTextEntry::*field,
                         int64_t* length) {
    for (IndexForm& f : IndexForms(text)) {
      if (!f.colocated) ++*length;
      const auto [it, added] = index.emplace(f.form, entry.terms.size());
      if (added) {
        entry.terms.push_back(std::move(f.form));
        entry.content_tf.push_back(0);
        entry.tags_tf.push_back(0);
      }
      ++(entry.*field)[it->second];
    }
  };
  count(content, &FullTextEntry::content_tf, &entry.content_terms);
  count(encoded_tags, &FullTextEntry::tags_tf, &entry.tags_terms);
  return entry;
}

}  // namespace engram
