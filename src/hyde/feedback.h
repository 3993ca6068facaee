// Pseudo-relevance feedback: HyDE's stand-in when there is no LLM
// (docs/ARCHITECTURE.md, "Pseudo-relevance feedback"). The top results of a
// first pass play the hypothetical answer: their terms expand the lexical
// query (RM3) and their vectors move the query vector (Rocchio). Pure
// functions; the engine runs the passes.
#ifndef ENGRAM_SRC_HYDE_FEEDBACK_H_
#define ENGRAM_SRC_HYDE_FEEDBACK_H_

#include <cstddef>
#include <string>
#include <vector>

namespace engram {

// One first-pass result read as feedback.
struct FeedbackDoc {
  std::string text;
  double weight = 0.0;  // its first-pass score, >= 0
};

struct WeightedTerm {
  std::string term;  // an analysed term, as the index holds it
  double weight = 0.0;
};

// RM3's relevance model of `docs`: P(t|R) = sum over d of w(d) * tf(t, d) /
// |d|, with w the docs' weights normalised to sum 1 (equal when they are
// all 0) and tf and |d| counted over the analyser's terms of each text in
// its own detected language (the forms the index holds). The `max_terms`
// most probable terms, ties by term, renormalised to sum 1; empty when the
// docs hold no term.
std::vector<WeightedTerm> RelevanceModel(const std::vector<FeedbackDoc>& docs, size_t max_terms);

// Rocchio's query vector: query + beta * (mean of `docs`), normalised to
// unit length. Every vector has the query's dimension; with no docs (or
// beta 0) it is the query itself.
std::vector<float> RocchioVector(const std::vector<float>& query,
                                 const std::vector<std::vector<float>>& docs, double beta);

}  // namespace engram

#endif  // ENGRAM_SRC_HYDE_FEEDBACK_H_
