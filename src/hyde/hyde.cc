#include "src/hyde/hyde.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_set>

#include "src/common/utf8.h"
#include "src/text/keywords.h"

namespace engram {
namespace {

// The DESIGN §5 prompt. Changing a word means bumping kHydePromptVersion.
constexpr char kHydeInstructions[] =
    "You help search a memory of short notes kept by a software agent for its user. "
    "Write a plausible answer to the user's message in 2 to 4 sentences, worded the way a "
    "note that answers it would be. Use the specific technical nouns, names, tools and terms "
    "that would appear in any matching note. If the message mixes English and Portuguese, "
    "answer in both languages. Write only the answer: no preamble, no caveats, no questions.";

// Longest hypothesis kept, in bytes; a model that rambles past its token
// limit adds nothing a search can use.
constexpr size_t kMaxHypothesisBytes = 4000;

// `text` cut to at most `max_bytes` without splitting a UTF-8 sequence.
std::string CutUtf8(const std::string& text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t end = max_bytes;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

LlmRequest HydeRequest(std::string_view query, const HydeOptions& options) {
  LlmRequest request;
  request.system = kHydeInstructions;
  request.user = std::string(query);
  request.max_tokens = options.max_tokens;
  request.temperature = 0.0;
  return request;
}

std::vector<std::string> HydeKeywords(std::string_view query, std::string_view hypothesis,
                                      size_t num_keywords) {
  std::vector<std::string> out;
  if (num_keywords == 0) return out;
  // Keywords come out case-folded, so equal strings are equal ignoring case.
  std::unordered_set<std::string> seen;
  for (std::string& k : ExtractKeywords(query)) seen.insert(std::move(k));
  for (std::string& k : ExtractKeywords(hypothesis, num_keywords)) {
    if (seen.insert(k).second) out.push_back(std::move(k));
  }
  return out;
}

HydeVector HydeSearchVector(const std::vector<float>& query, const std::vector<float>& hypothesis,
                            HydeEmbed embed) {
  const bool both = !query.empty() && hypothesis.size() == query.size();
  if (embed == HydeEmbed::kBoth && both) {
    std::vector<float> mean(query.size());
    double norm = 0.0;
    for (size_t i = 0; i < query.size(); ++i) {
      mean[i] = 0.5F * (query[i] + hypothesis[i]);
      norm += static_cast<double>(mean[i]) * mean[i];
    }
    // Opposite unit vectors have no mean direction: fall back to the query.
    if (norm <= 1e-12) return {query, "query"};
    const auto scale = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : mean) x *= scale;
    return {std::move(mean), "query+hypothesis"};
  }
  if (embed == HydeEmbed::kHypothesis && !hypothesis.empty()) return {hypothesis, "hypothesis"};
  if (!query.empty()) return {query, "query"};
  if (!hypothesis.empty()) return {hypothesis, "hypothesis"};
  return {};
}

HydeOutcome Hypothesize(const Llm& llm, std::string_view query, const HydeOptions& options,
                        const HypothesisCache* cache) {
  HydeOutcome outcome;
  const std::string text(query);
  const bool use_cache = options.cache && cache != nullptr;
  if (use_cache && cache->get) {
    auto cached = cache->get(llm.Name(), kHydePromptVersion, text);
    if (cached.ok() && cached->has_value()) {
      outcome.hypothesis = **cached;
      outcome.cached = true;
      return outcome;
    }
    if (!cached.ok()) {
      outcome.fallbacks.push_back("hypothesis cache not read: " + cached.status().message());
    }
  }
  auto answer = llm.Complete(HydeRequest(query, options));
  if (!answer.ok()) {
    outcome.fallbacks.push_back("llm " + llm.Name() + " failed (" +
                                std::string(StatusCodeName(answer.status().code())) +
                                "): " + answer.status().message());
    return outcome;
  }
  std::string hypothesis = CutUtf8(*answer, kMaxHypothesisBytes);
  size_t bad = 0;
  if (!IsValidUtf8(hypothesis, &bad)) {
    outcome.fallbacks.push_back("llm " + llm.Name() + " answered invalid UTF-8 at byte " +
                                std::to_string(bad + 1));
    return outcome;
  }
  if (std::all_of(hypothesis.begin(), hypothesis.end(),
                  [](unsigned char c) { return std::isspace(c) != 0; })) {
    outcome.fallbacks.push_back("llm " + llm.Name() + " answered nothing");
    return outcome;
  }
  outcome.hypothesis = std::move(hypothesis);
  if (use_cache && cache->put) {
    Status stored = cache->put(llm.Name(), kHydePromptVersion, text, outcome.hypothesis);
    if (!stored.ok()) {
      outcome.fallbacks.push_back("hypothesis not cached: " + stored.message());
    }
  }
  return outcome;
}

}  // namespace engram
