// HyDE (DESIGN §5): a hypothetical answer to the query, written by an LLM,
// that expands the lexical query (3a) and joins the query's embedding in
// the vector search (3b).
//
// Hypothesize() asks the cache, then the LLM, and never fails: whatever
// goes wrong (LLM down, timeout, 401, an empty or garbage answer) is
// reported in HydeOutcome::fallback and the search goes on without a
// hypothesis.
//
// Thread-safety: the functions are pure; Hypothesize is as thread-safe as
// the Llm and cache it is given.
#ifndef ENGRAM_SRC_HYDE_HYDE_H_
#define ENGRAM_SRC_HYDE_HYDE_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/llm.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

// Bumped whenever the prompt changes, so cached hypotheses of an older
// prompt are not reused.
inline constexpr int kHydePromptVersion = 1;

// The fixed prompt: instructions as the system message, the query as the
// user message, at most options.max_tokens tokens, temperature 0.
LlmRequest HydeRequest(std::string_view query, const HydeOptions& options);

// 3a: the first `num_keywords` keywords of the hypothesis (ExtractKeywords)
// that are not already keywords of the query, compared case-insensitively,
// in the hypothesis's order. Both texts must be valid UTF-8.
std::vector<std::string> HydeKeywords(std::string_view query, std::string_view hypothesis,
                                      size_t num_keywords);

// 3b: the search vector from the query's and the hypothesis's unit vectors
// (either may be empty when it could not be embedded): kBoth gives the
// normalised mean of the two, kQuery and kHypothesis the one they name;
// when the chosen one is missing, the other. Empty when both are.
struct HydeVector {
  std::vector<float> vector;
  // Which went into it: "query", "hypothesis", "query+hypothesis"; empty
  // with the vector.
  std::string source;
};
HydeVector HydeSearchVector(const std::vector<float>& query, const std::vector<float>& hypothesis,
                            HydeEmbed embed);

// Where hypotheses are cached (the store, for the engine). Errors are
// reported as fallbacks, never fatal.
struct HypothesisCache {
  std::function<Result<std::optional<std::string>>(const std::string& llm, int prompt_version,
                                                   const std::string& query)>
      get;
  std::function<Status(const std::string& llm, int prompt_version, const std::string& query,
                       const std::string& hypothesis)>
      put;
};

struct HydeOutcome {
  std::string hypothesis;  // empty when there is none
  bool cached = false;     // came from the cache, no LLM call
  // Problems met on the way, e.g. "llm openai:gpt-4o-mini failed: ...";
  // when `hypothesis` is empty, the search runs without HyDE.
  std::vector<std::string> fallbacks;
};

// The hypothesis for `query`: from `cache` when it has one (and options.cache),
// else from `llm` (then stored in the cache). Answers longer than 4,000
// bytes are cut at a UTF-8 boundary; answers that are empty or not valid
// UTF-8 count as failures.
HydeOutcome Hypothesize(const Llm& llm, std::string_view query, const HydeOptions& options,
                        const HypothesisCache* cache);

}  // namespace engram

#endif  // ENGRAM_SRC_HYDE_HYDE_H_
