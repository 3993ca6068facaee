#include "src/rank/fusion.h"

#include <algorithm>
#include <limits>

namespace engram {
namespace {

constexpr double kMinSpread = 1e-12;

// A signal on its own absolute terms: a BM25 match is a full match, a
// cosine its value clamped to [0, 1].
double LexicalOnOwn(double bm25) { return bm25 > 0 ? 1.0 : 0.0; }
double SemanticOnOwn(double cosine) { return std::clamp(cosine, 0.0, 1.0); }

// Min-max normalisation of an optional signal over the candidates. An absent
// value counts as `absent` when given (BM25 of a fact that matched no term
// is 0), and otherwise takes no part and normalises to 0, the minimum (a
// fact without a vector has no cosine). With no spread (one candidate, or
// equal values) a present value normalises to `on_own` of itself.
void MinMax(const std::vector<FusionCandidate>& in, std::optional<double> FusionCandidate::*field,
            std::optional<double> absent, double (*on_own)(double),
            SignalValue FusedCandidate::*out, std::vector<FusedCandidate>* fused) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& c : in) {
    const std::optional<double> v = (c.*field).has_value() ? c.*field : absent;
    if (!v) continue;
    lo = std::min(lo, *v);
    hi = std::max(hi, *v);
  }
  const double spread = hi - lo;
  for (size_t i = 0; i < in.size(); ++i) {
    SignalValue& s = (*fused)[i].*out;
    s.present = (in[i].*field).has_value();
    s.raw = (in[i].*field).value_or(absent.value_or(0.0));
    if (spread > kMinSpread) {
      s.normalized = s.present ? (s.raw - lo) / spread : 0.0;
      if (!s.present && absent) s.normalized = (*absent - lo) / spread;
    } else {
      // A lone candidate, or all alike: no range to place it in, so it
      // keeps its own absolute value (a match is a match).
      s.normalized = s.present ? on_own(s.raw) : 0.0;
    }
  }
}

// Less-than of the final order: by score descending, then id, then scope.
bool RanksBefore(const std::vector<FusionCandidate>& in, double score_a, size_t a, double score_b,
                 size_t b) {
  if (score_a != score_b) return score_a > score_b;
  if (in[a].id != in[b].id) return in[a].id < in[b].id;
  return in[a].scope < in[b].scope;
}

// Fills SignalValue::rank (1 = best) for the candidates that have the signal.
void Rank(const std::vector<FusionCandidate>& in, SignalValue FusedCandidate::*signal,
          std::vector<FusedCandidate>* fused) {
  std::vector<size_t> order;
  for (size_t i = 0; i < in.size(); ++i) {
    if (((*fused)[i].*signal).present) order.push_back(i);
  }
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return RanksBefore(in, ((*fused)[a].*signal).raw, a, ((*fused)[b].*signal).raw, b);
  });
  for (size_t r = 0; r < order.size(); ++r) ((*fused)[order[r]].*signal).rank = r + 1;
}

}  // namespace

FusionWeights EffectiveWeights(const FusionWeights& requested, bool has_semantic, bool has_lexical,
                               bool has_temporal) {
  FusionWeights w{std::max(0.0, requested.semantic), std::max(0.0, requested.lexical),
                  std::max(0.0, requested.temporal)};
  if (w.semantic + w.lexical + w.temporal <= 0) w = FusionWeights{};
  const auto keep = [&](const FusionWeights& x) {
    return FusionWeights{has_semantic ? x.semantic : 0.0, has_lexical ? x.lexical : 0.0,
                         has_temporal ? x.temporal : 0.0};
  };
  FusionWeights kept = keep(w);
  if (kept.semantic + kept.lexical + kept.temporal <= 0) kept = keep(FusionWeights{});
  const double sum = kept.semantic + kept.lexical + kept.temporal;
  if (sum <= 0) return kept;
  return FusionWeights{kept.semantic / sum, kept.lexical / sum, kept.temporal / sum};
}

FusionResult Fuse(const std::vector<FusionCandidate>& candidates, FusionMode mode,
                  const FusionOptions& options, const FusionNeeds& needs) {
  FusionResult result;
  std::vector<FusedCandidate> fused(candidates.size());
  bool has_semantic = false;
  bool has_lexical = false;
  double temporal_max = 0.0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    fused[i].index = i;
    has_semantic |= candidates[i].semantic.has_value();
    has_lexical |= candidates[i].lexical.has_value();
    temporal_max = std::max(temporal_max, candidates[i].temporal);
  }
  MinMax(candidates, &FusionCandidate::lexical, 0.0, &LexicalOnOwn, &FusedCandidate::lexical,
         &fused);
  MinMax(candidates, &FusionCandidate::semantic, std::nullopt, &SemanticOnOwn,
         &FusedCandidate::semantic, &fused);
  const double temporal_scale = std::max(1.0, temporal_max);
  for (size_t i = 0; i < candidates.size(); ++i) {
    fused[i].temporal =
        SignalValue{true, candidates[i].temporal, candidates[i].temporal / temporal_scale, 0};
  }
  if (needs.signal_ranks || mode == FusionMode::kRrf) {
    Rank(candidates, &FusedCandidate::lexical, &fused);
    Rank(candidates, &FusedCandidate::semantic, &fused);
    Rank(candidates, &FusedCandidate::temporal, &fused);
  }

  switch (mode) {
    case FusionMode::kLexical:
      result.weights = FusionWeights{0, 1, 0};
      for (auto& f : fused) f.score = f.lexical.raw;
      break;
    case FusionMode::kTemporal:
      result.weights = FusionWeights{0, 0, 1};
      for (auto& f : fused) f.score = f.temporal.raw;
      break;
    case FusionMode::kSemantic:
      result.weights = FusionWeights{1, 0, 0};
      for (auto& f : fused) f.score = f.semantic.present ? f.semantic.raw : -1.0;
      break;
    case FusionMode::kRrf:
      result.weights = FusionWeights{has_semantic ? 1.0 : 0.0, has_lexical ? 1.0 : 0.0, 0};
      for (auto& f : fused) {
        f.score = 0;
        if (f.lexical.present)
          f.score += 1.0 / (options.rrf_k + static_cast<double>(f.lexical.rank));
        if (f.semantic.present) {
          f.score += 1.0 / (options.rrf_k + static_cast<double>(f.semantic.rank));
        }
      }
      break;
    case FusionMode::kBlended:
      result.weights = EffectiveWeights(options.weights, has_semantic, has_lexical, true);
      for (auto& f : fused) {
        f.score = result.weights.semantic * f.semantic.normalized +
                  result.weights.lexical * f.lexical.normalized +
                  result.weights.temporal * f.temporal.normalized;
      }
      break;
  }
  const auto before = [&](const FusedCandidate& a, const FusedCandidate& b) {
    return RanksBefore(candidates, a.score, a.index, b.score, b.index);
  };
  if (needs.top < fused.size()) {
    std::partial_sort(fused.begin(), fused.begin() + static_cast<std::ptrdiff_t>(needs.top),
                      fused.end(), before);
  } else {
    std::sort(fused.begin(), fused.end(), before);
  }
  result.ranked = std::move(fused);
  return result;
}

}  // namespace engram
