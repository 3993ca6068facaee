#include "src/lexical/lexical_searcher.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <unordered_map>

#include "src/lexical/bm25.h"
#include "src/store/fact_store.h"
#include "src/text/analyzer.h"
#include "src/text/bilingual_dictionary.h"

namespace engram {

void FoldPhraseFrequencies(std::span<const int32_t> by_phrase, const QueryPhrases& phrases,
                           size_t n_fields, std::span<int32_t> by_term) {
  for (size_t t = 0; t < phrases.of_term.size(); ++t) {
    for (const size_t p : phrases.of_term[t]) {
      for (size_t f = 0; f < n_fields; ++f) {
        by_term[t * n_fields + f] += by_phrase[p * n_fields + f];
      }
    }
  }
}

std::vector<std::string> LexicalQuery::Terms() const {
  std::vector<std::string> out;
  out.reserve(terms.size());
  for (const QueryTerm& t : terms) out.push_back(t.term);
  return out;
}

std::vector<double> LexicalQuery::Weights() const {
  std::vector<double> out;
  out.reserve(terms.size());
  for (const QueryTerm& t : terms) out.push_back(t.weight);
  return out;
}

size_t LexicalQuery::Find(std::string_view term) const {
  const auto it =
      std::find_if(terms.begin(), terms.end(), [&](const QueryTerm& t) { return t.term == term; });
  return static_cast<size_t>(it - terms.begin());
}

QueryPhrases PhrasesOf(const LexicalQuery& query) {
  QueryPhrases out;
  std::unordered_map<std::string_view, size_t> index;
  out.of_term.reserve(query.terms.size());
  for (const QueryTerm& t : query.terms) {
    std::vector<size_t>& forms = out.of_term.emplace_back();
    for (const std::string& form : t.forms) {
      const auto [it, added] = index.emplace(form, out.phrases.size());
      if (added) out.phrases.push_back(form);
      forms.push_back(it->second);
    }
  }
  return out;
}

namespace {

// Appends `form` to `term`'s forms unless it is empty or there already.
void AddForm(std::string form, QueryTerm* term) {
  if (!form.empty() &&
      std::find(term->forms.begin(), term->forms.end(), form) == term->forms.end()) {
    term->forms.push_back(std::move(form));
  }
}

Language LanguageOf(const LexicalQuery& query) {
  return query.language == LanguageName(Language::kPortuguese) ? Language::kPortuguese
                                                               : Language::kEnglish;
}

// Adds the terms of `text`, analysed in `query`'s language, to `query`: a
// term it holds gains `weight` when `repeats_count`, and is otherwise left
// as it is. A new term of a Portuguese query also matches the word's
// English stem: a fact detected as English stems the Portuguese words it
// holds (names, tags, loan words) as English ("idioma" stays "idioma",
// where Portuguese gives "idiom"); and, with `translate`, its English
// translations (BilingualDictionary), for the facts written in English
// ("idioma": idiom, language, tongue). A new term of an English query keeps
// its word, for the Portuguese forms a search adds when its scopes hold
// Portuguese facts (WithPortugueseForms). Returns how many terms were new.
size_t AddTerms(std::string_view text, double weight, bool repeats_count, bool translate,
                LexicalQuery* query) {
  const Language language = LanguageOf(*query);
  size_t added = 0;
  for (AnalyzedToken& token : Analyze(text, language)) {
    const size_t at = query->Find(token.term);
    if (at < query->terms.size()) {
      if (repeats_count) query->terms[at].weight += weight;
      continue;
    }
    QueryTerm term;
    term.forms.push_back(token.term);
    if (language == Language::kPortuguese) {
      AddForm(TermAs(text, token, Language::kEnglish), &term);
      if (translate) {
        for (const std::string& english :
             BilingualDictionary::PortugueseEnglish().Translations(token.term)) {
          AddForm(english, &term);
        }
      }
    } else {
      term.word = text.substr(token.begin, token.end - token.begin);
    }
    term.term = std::move(token.term);
    term.weight = weight;
    query->terms.push_back(std::move(term));
    ++added;
  }
  return added;
}

}  // namespace

LexicalQuery AnalyzeQuery(std::string_view text, bool translate) {
  LexicalQuery q;
  q.language = std::string(LanguageName(DetectLanguage(text)));
  q.translate = translate;
  AddTerms(text, 1.0, /*repeats_count=*/true, translate, &q);
  return q;
}

size_t ExpandQuery(LexicalQuery* query, const std::vector<std::string>& keywords, double weight,
                   bool translate) {
  size_t added = 0;
  for (const std::string& keyword : keywords) {
    added += AddTerms(keyword, weight, /*repeats_count=*/false, translate, query);
  }
  return added;
}

LexicalQuery WithPortugueseForms(LexicalQuery query) {
  if (LanguageOf(query) == Language::kPortuguese) return query;
  for (QueryTerm& term : query.terms) {
    if (term.word.empty()) continue;
    const auto add_portuguese = [&](const std::string& portuguese) {
      if (!portuguese.empty() && portuguese != term.term) {
        AddForm(PortugueseTextForm(portuguese), &term);
      }
    };
    add_portuguese(
        TermAs(term.word, AnalyzedToken{"", 0, term.word.size()}, Language::kPortuguese));
    if (query.translate) {
      for (const std::string& portuguese :
           BilingualDictionary::EnglishPortuguese().Translations(term.term)) {
        add_portuguese(portuguese);
      }
    }
  }
  return query;
}

bool AddTermWeight(LexicalQuery* query, const std::string& term, double weight) {
  const size_t at = query->Find(term);
  if (at < query->terms.size()) {
    query->terms[at].weight += weight;
    return false;
  }
  query->terms.push_back(QueryTerm{term, {term}, weight, {}});
  return true;
}

double LexicalCoverage(const std::vector<size_t>& matched, const LexicalQuery& query,
                       const QueryTermCounts& counts, size_t first, size_t last) {
  last = std::min({last, counts.doc_freq.size(), query.terms.size()});
  const int64_t n_docs = std::max(counts.n_docs, kCoverageMinDocs);
  const auto weight = [&](size_t t) {
    return query.terms[t].weight * Bm25Idf(n_docs, counts.doc_freq[t]);
  };
  double total = 0.0;
  for (size_t t = first; t < last; ++t) total += weight(t);
  double covered = 0.0;
  for (const size_t t : matched) {
    if (t >= first && t < last) covered += weight(t);
  }
  return total > 0.0 ? covered / total : 0.0;
}

int64_t CountTerms(std::string_view text) { return static_cast<int64_t>(Analyze(text).size()); }

FactTextCounts CountFactText(std::string_view content, const std::vector<std::string>& tags) {
  FactTextCounts counts;
  Language language = Language::kEnglish;
  counts.content_terms = static_cast<int64_t>(Analyze(content, {}, &language).size());
  counts.tags_terms = CountTagTerms(tags);
  counts.portuguese = language == Language::kPortuguese;
  return counts;
}

int64_t CountTagTerms(const std::vector<std::string>& tags) { return CountTerms(EncodeTags(tags)); }

namespace {

// The facts of the indexes' scopes holding any of `phrases`, as
// FactStore::MatchFullText gives them, by rowid.
std::vector<FullTextMatch> MatchIndexes(const std::vector<const LexicalIndex*>& indexes,
                                        const std::vector<std::string>& phrases, bool content_only,
                                        const FactVisibility& visibility) {
  std::vector<FullTextMatch> out;
  for (const LexicalIndex* index : indexes) {
    std::vector<FullTextMatch> found = index->Match(phrases, content_only, visibility);
    out.insert(out.end(), std::make_move_iterator(found.begin()),
               std::make_move_iterator(found.end()));
  }
  if (indexes.size() > 1) {
    std::sort(out.begin(), out.end(),
              [](const FullTextMatch& a, const FullTextMatch& b) { return a.rowid < b.rowid; });
  }
  return out;
}

}  // namespace

Result<std::vector<LexicalHit>> SearchLexical(FactStore& store, const LexicalQuery& query,
                                              const std::vector<std::string>& scopes,
                                              const Bm25Options& options,
                                              const FactVisibility& visibility,
                                              QueryTermCounts* counts,
                                              const std::vector<const LexicalIndex*>* indexes) {
  std::vector<LexicalHit> out;
  if (query.terms.empty()) return out;

  // Collection statistics of the searched scopes.
  ENGRAM_ASSIGN_OR_RETURN(const FullTextTotals totals, store.FullTextTotalsOf(scopes));
  const int64_t n_docs = totals.facts;
  if (counts != nullptr) *counts = QueryTermCounts{n_docs, {}};
  if (n_docs == 0) return out;
  const double avg_content = totals.content_terms / static_cast<double>(n_docs);
  const double avg_tags = totals.tags_terms / static_cast<double>(n_docs);
  const QueryPhrases phrases =
      PhrasesOf(totals.portuguese_facts > 0 ? WithPortugueseForms(query) : query);

  const bool content_only = options.tag_boost <= 0;
  std::vector<FullTextMatch> found;
  if (indexes != nullptr) {
    found = MatchIndexes(*indexes, phrases.phrases, content_only, visibility);
  } else {
    ENGRAM_ASSIGN_OR_RETURN(found,
                            store.MatchFullText(phrases.phrases, content_only, scopes, visibility));
  }
  constexpr size_t kFields = 2;  // content, tags
  Bm25Matches matches(query.terms.size(), kFields);
  matches.Reserve(found.size());
  out.reserve(found.size());
  for (FullTextMatch& f : found) {
    FoldPhraseFrequencies(
        f.tf, phrases, kFields,
        matches.Add({static_cast<double>(f.content_terms), static_cast<double>(f.tags_terms)}));
    LexicalHit& hit = out.emplace_back();
    hit.rowid = f.rowid;
    hit.id = std::move(f.id);
    hit.scope = std::move(f.scope);
    hit.access_count = f.access_count;
    hit.last_accessed = f.last_accessed;
    hit.created_at = f.created_at;
  }
  const Bm25Collection collection{n_docs, {avg_content, avg_tags}, {1.0, options.tag_boost}};
  std::vector<std::vector<size_t>> matched;
  const std::vector<double> scores =
      Bm25Scores(matches, query.Weights(), collection, options, &matched,
                 counts != nullptr ? &counts->doc_freq : nullptr);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].score = scores[i];
    out[i].matched = std::move(matched[i]);
  }
  return out;
}

Result<std::vector<ChunkLexicalHit>> SearchChunksLexical(ChunkStore& store,
                                                         const LexicalQuery& query,
                                                         const std::vector<int64_t>& attachment_ids,
                                                         const Bm25Options& options) {
  std::vector<ChunkLexicalHit> out;
  if (attachment_ids.empty() || query.terms.empty()) return out;
  ENGRAM_ASSIGN_OR_RETURN(const ChunkTextTotals totals, store.TextTotalsOf(attachment_ids));
  if (totals.chunks == 0) return out;
  const QueryPhrases phrases = PhrasesOf(query);
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkTextMatch> found,
                          store.MatchText(phrases.phrases, attachment_ids));
  Bm25Matches matches(query.terms.size(), 1);
  matches.Reserve(found.size());
  out.reserve(found.size());
  for (const ChunkTextMatch& f : found) {
    FoldPhraseFrequencies(f.tf, phrases, 1, matches.Add({static_cast<double>(f.terms)}));
    out.push_back(ChunkLexicalHit{f.rowid, 0.0});
  }
  const Bm25Collection collection{
      totals.chunks, {totals.terms / static_cast<double>(totals.chunks)}, {1.0}};
  const std::vector<double> scores =
      Bm25Scores(matches, query.Weights(), collection, options, nullptr);
  for (size_t i = 0; i < out.size(); ++i) out[i].score = scores[i];
  return out;
}

}  // namespace engram
