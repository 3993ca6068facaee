// LexicalIndex: the full-text index of one scope's facts in memory. It
// answers what FactStore::MatchFullText answers from the store, for the
// visibility of a plain search (no filter, no as_of): the facts holding any
// of a query's phrases, each with its occurrences of every phrase per field
// and what ranking reads of it, the same matches with the same counts, in
// rowid order. A fact's forms and lengths are FullTextEntryOf's
// (src/store/index_forms.h), which are what the store's index holds.
//
// Built from the scope's facts (Add, then Seal), then kept in step by its
// owner (Apply), who decides when it describes the store.
//
// Thread-safety: none inside; any number of threads may Match at once
// while none calls anything else.
#ifndef ENGRAM_SRC_LEXICAL_LEXICAL_INDEX_H_
#define ENGRAM_SRC_LEXICAL_LEXICAL_INDEX_H_

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "src/store/fact_store.h"

namespace engram {

class LexicalIndex {
 public:
  explicit LexicalIndex(std::string scope);

  // Indexes `fact`, which must be of the index's scope and not there yet.
  void Add(const StoredFact& fact);
  // Orders what Add gathered; call once, after the last Add.
  void Seal();
  // Brings a sealed index up to `fact`, as the store now holds it: a fact
  // indexed with the same id (a digest of its content, which the store
  // never rewrites) and the same tags takes its ranking and visibility
  // fields; a fact with a rowid above every indexed one is
  // added. False, and nothing changed, for anything else (its text
  // changed, or a rowid below the last that the index lacks): the index
  // can no longer follow and must be built again.
  bool Apply(const StoredFact& fact);

  // Whether Match answers for `visibility`: no filter and no as_of.
  static bool Answers(const FactVisibility& visibility);
  // The facts holding at least one of `phrases` (analysed forms, distinct)
  // in content or, unless `content_only`, in tags, that `visibility` sees
  // (Answers must hold), by rowid; FullTextMatch::tf is [phrase][field],
  // content then tags, and with `content_only` a fact's counts in tags are
  // 0.
  std::vector<FullTextMatch> Match(const std::vector<std::string>& phrases, bool content_only,
                                   const FactVisibility& visibility) const;

  // How many indexed facts hold `form` in content or tags, whatever their
  // visibility: FactStore::FactsHolding's count, without a query.
  int64_t FactsHolding(const std::string& form) const;

  const std::string& Scope() const { return scope_; }
  size_t Size() const { return facts_.size(); }

 private:
  // What ranking and visibility read of a fact.
  struct IndexedFact {
    int64_t rowid = 0;
    std::string id;
    int64_t content_terms = 0;
    int64_t tags_terms = 0;
    int64_t access_count = 0;
    Timestamp last_accessed = 0;
    Timestamp created_at = 0;
    Timestamp expires_at = 0;  // 0: never
    bool superseded = false;
    std::string tags;  // as stored (EncodeTags) when indexed
  };
  // One fact holding a form: the fact's index in facts_, and the form's
  // occurrences in its content and tags.
  struct Posting {
    uint32_t fact = 0;
    int32_t content_tf = 0;
    int32_t tags_tf = 0;
  };

  // `fact`'s ranking and visibility fields.
  static void CopyFields(const Fact& fact, IndexedFact* indexed);
  // Indexes `stored` as the last fact.
  void Append(const StoredFact& stored);
  bool Sees(const IndexedFact& fact, const FactVisibility& visibility) const;

  std::string scope_;
  std::vector<IndexedFact> facts_;                                  // by rowid once sealed
  std::unordered_map<std::string, std::vector<Posting>> postings_;  // by fact once sealed
  bool sealed_ = false;
};

}  // namespace engram

#endif  // ENGRAM_SRC_LEXICAL_LEXICAL_INDEX_H_
