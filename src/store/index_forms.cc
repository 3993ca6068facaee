#include "src/store/index_forms.h"

#include <unordered_map>

#include "src/text/analyzer.h"

namespace engram {

std::vector<IndexForm> IndexForms(std::string_view text) {
  Language language = Language::kEnglish;
  const std::vector<AnalyzedToken> terms = Analyze(text, {}, &language);
  std::vector<IndexForm> out;
  out.reserve(language == Language::kPortuguese ? 2 * terms.size() : terms.size());
  for (const AnalyzedToken& t : terms) {
    out.push_back(IndexForm{t.term, t.begin, t.end, false});
    if (language == Language::kPortuguese) {
      out.push_back(IndexForm{PortugueseTextForm(t.term), t.begin, t.end, true});
    }
  }
  return out;
}

FullTextEntry FullTextEntryOf(std::string_view content, std::string_view encoded_tags) {
  FullTextEntry entry;
  std::unordered_map<std::string, size_t> index;
  const auto count = [&](std::string_view text, std::vector<int32_t> FullTextEntry::*field) {
    for (IndexForm& f : IndexForms(text)) {
      const auto [it, added] = index.emplace(f.form, entry.terms.size());
      if (added) {
        entry.terms.push_back(std::move(f.form));
        entry.content_tf.push_back(0);
        entry.tags_tf.push_back(0);
      }
      ++(entry.*field)[it->second];
    }
  };
  count(content, &FullTextEntry::content_tf);
  count(encoded_tags, &FullTextEntry::tags_tf);
  return entry;
}

}  // namespace engram
