#include "src/lexical/lexical_index.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <utility>

#include "src/store/index_forms.h"

namespace engram {

LexicalIndex::LexicalIndex(std::string scope) : scope_(std::move(scope)) {}

void LexicalIndex::Add(const StoredFact& stored) {
  assert(!sealed_);
  Append(stored);
}

void LexicalIndex::Append(const StoredFact& stored) {
  assert(stored.fact.scope == scope_);
  const Fact& f = stored.fact;
  std::string tags = EncodeTags(f.tags);
  const FullTextEntry entry = FullTextEntryOf(f.content, tags);
  const auto index = static_cast<uint32_t>(facts_.size());
  IndexedFact& indexed = facts_.emplace_back();
  indexed.rowid = stored.rowid;
  indexed.id = f.id;
  indexed.content_terms = entry.content_terms;
  indexed.tags_terms = entry.tags_terms;
  indexed.tags = std::move(tags);
  CopyFields(f, &indexed);
  for (size_t t = 0; t < entry.terms.size(); ++t) {
    postings_[entry.terms[t]].push_back(Posting{index, entry.content_tf[t], entry.tags_tf[t]});
  }
}

void LexicalIndex::CopyFields(const Fact& fact, IndexedFact* indexed) {
  indexed->access_count = fact.access_count;
  indexed->last_accessed = fact.last_accessed;
  indexed->created_at = fact.created_at;
  indexed->expires_at = fact.expires_at;
  indexed->superseded = fact.IsSuperseded();
}

bool LexicalIndex::Apply(const StoredFact& stored) {
  assert(sealed_ && stored.fact.scope == scope_);
  if (facts_.empty() || stored.rowid > facts_.back().rowid) {
    // The newest fact: its postings go at the end of each list, in order.
    Append(stored);
    return true;
  }
  const auto it =
      std::lower_bound(facts_.begin(), facts_.end(), stored.rowid,
                       [](const IndexedFact& f, int64_t rowid) { return f.rowid < rowid; });
  if (it == facts_.end() || it->rowid != stored.rowid || it->id != stored.fact.id ||
      it->tags != EncodeTags(stored.fact.tags)) {
    return false;
  }
  CopyFields(stored.fact, &*it);
  return true;
}

void LexicalIndex::Seal() {
  assert(!sealed_);
  sealed_ = true;
  // Facts by rowid, and each posting renumbered to its fact's new place.
  std::vector<uint32_t> order(facts_.size());
  std::iota(order.begin(), order.end(), 0U);
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return facts_[a].rowid < facts_[b].rowid; });
  std::vector<uint32_t> place(facts_.size());
  std::vector<IndexedFact> sorted;
  sorted.reserve(facts_.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    place[order[i]] = i;
    sorted.push_back(std::move(facts_[order[i]]));
  }
  facts_ = std::move(sorted);
  for (auto& [form, list] : postings_) {
    for (Posting& p : list) p.fact = place[p.fact];
    std::sort(list.begin(), list.end(),
              [](const Posting& a, const Posting& b) { return a.fact < b.fact; });
    list.shrink_to_fit();
  }
}

bool LexicalIndex::Answers(const FactVisibility& visibility) { return visibility.filter.IsEmpty(); }

bool LexicalIndex::Sees(const IndexedFact& fact, const FactVisibility& visibility) const {
  if (fact.superseded && !visibility.include_superseded) return false;
  return visibility.include_expired || fact.expires_at == 0 || fact.expires_at > visibility.now;
}

int64_t LexicalIndex::FactsHolding(const std::string& form) const {
  // A fact holds each of its forms once in postings_.
  const auto it = postings_.find(form);
  return it == postings_.end() ? 0 : static_cast<int64_t>(it->second.size());
}

std::vector<FullTextMatch> LexicalIndex::Match(const std::vector<std::string>& phrases,
                                               bool content_only,
                                               const FactVisibility& visibility) const {
  assert(sealed_ && Answers(visibility));
  constexpr size_t kFields = 2;  // content, tags
  std::vector<const std::vector<Posting>*> lists(phrases.size(), nullptr);
  for (size_t p = 0; p < phrases.size(); ++p) {
    if (auto it = postings_.find(phrases[p]); it != postings_.end()) lists[p] = &it->second;
  }
  const auto counts = [&](const Posting& posting) {
    return !content_only || posting.content_tf > 0;
  };

  // The facts matched and seen, by rowid; slot[fact] is a fact's match,
  // kUnseen until looked at, kHidden when the visibility hides it.
  constexpr int32_t kUnseen = -1;
  constexpr int32_t kHidden = -2;
  std::vector<int32_t> slot(facts_.size(), kUnseen);
  std::vector<uint32_t> matched;
  for (const std::vector<Posting>* list : lists) {
    if (list == nullptr) continue;
    for (const Posting& posting : *list) {
      if (!counts(posting) || slot[posting.fact] != kUnseen) continue;
      const bool seen = Sees(facts_[posting.fact], visibility);
      slot[posting.fact] = seen ? 0 : kHidden;
      if (seen) matched.push_back(posting.fact);
    }
  }
  std::sort(matched.begin(), matched.end());

  std::vector<FullTextMatch> out(matched.size());
  // Ids live apart from their facts, one heap block each: while a match is
  // copied, the fact twice as far ahead and the id block of the one a few
  // matches ahead are asked for, so neither is waited for.
  constexpr size_t kPrefetchAhead = 8;
  for (size_t m = 0; m < matched.size(); ++m) {
    if (m + (2 * kPrefetchAhead) < matched.size()) {
      // The first and the last field copied below.
      const IndexedFact& ahead = facts_[matched[m + (2 * kPrefetchAhead)]];
      __builtin_prefetch(&ahead.rowid);
      __builtin_prefetch(&ahead.created_at);
    }
    if (m + kPrefetchAhead < matched.size()) {
      __builtin_prefetch(facts_[matched[m + kPrefetchAhead]].id.data());
    }
    const IndexedFact& f = facts_[matched[m]];
    slot[matched[m]] = static_cast<int32_t>(m);
    FullTextMatch& match = out[m];
    match.rowid = f.rowid;
    match.id = f.id;
    match.scope = scope_;
    match.content_terms = f.content_terms;
    match.tags_terms = f.tags_terms;
    match.access_count = f.access_count;
    match.last_accessed = f.last_accessed;
    match.created_at = f.created_at;
    match.tf.assign(phrases.size() * kFields, 0);
  }
  for (size_t p = 0; p < lists.size(); ++p) {
    if (lists[p] == nullptr) continue;
    for (const Posting& posting : *lists[p]) {
      const int32_t m = slot[posting.fact];
      if (m < 0 || !counts(posting)) continue;
      std::vector<int32_t>& tf = out[static_cast<size_t>(m)].tf;
      tf[p * kFields] = posting.content_tf;
      tf[p * kFields + 1] = content_only ? 0 : posting.tags_tf;
    }
  }
  return out;
}

}  // namespace engram
