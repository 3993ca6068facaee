// What a text puts in the store's full-text index, the same for every
// store: SQLite's FTS5 tokenizer emits these forms (fts5_engram.h) and the
// PostgreSQL store keeps them in its term arrays (postgres/pg_schema.h), so
// both count a query's terms in a fact alike and BM25 ranks alike.
//
// A text's forms are its analysed terms in order (the analyzer picks the
// text's language); a text detected as Portuguese also has, at each term,
// the term's PortugueseTextForm (src/text/analyzer.h), which adds no length.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_SRC_STORE_INDEX_FORMS_H_
#define ENGRAM_SRC_STORE_INDEX_FORMS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct IndexForm {
  std::string form;
  size_t begin = 0;  // the word's bytes in the text
  size_t end = 0;
  // At the same position as the form before it (the Portuguese form).
  bool colocated = false;
};

// The forms of `text`, in order.
std::vector<IndexForm> IndexForms(std::string_view text);

// A fact's entry in a full-text index of term arrays: its distinct forms
// in first-seen order (content first, then tags), each form's count in
// content and in tags, and the lengths of content and tags in analysed
// terms (colocated forms add none), as FactTextCounts records them.
struct FullTextEntry {
  std::vector<std::string> terms;
  std::vector<int32_t> content_tf;
  std::vector<int32_t> tags_tf;
  int64_t content_terms = 0;
  int64_t tags_terms = 0;
};

// The entry of a fact whose content is `content` and whose tags, as stored
// (EncodeTags), are `encoded_tags`.
FullTextEntry FullTextEntryOf(std::string_view content, std::string_view encoded_tags);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_INDEX_FORMS_H_
