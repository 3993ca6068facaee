#include "src/rank/fusion.h"

#include <algorithm>
#include <limits>

namespace engram {
namespace {

constexpr double kMinSpread = 1e-12;

// Min-max normalisation of an optional signal; absent values count as 0.
void MinMax(const std::vector<FusionCandidate>& in, std::optional<double> FusionCandidate::*field,
            SignalValue FusedCandidate::*out, std::vector<FusedCandidate>* fused) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (const auto& c : in) {
    const double v = (c.*field).value_or(0.0);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double spread = hi - lo;
  for (size_t i = 0; i < in.size(); ++i) {
    SignalValue& s = (*fused)[i].*out;
    s.present = (in[i].*field).has_value();
    s.raw = (in[i].*field).value_or(0.0);
    s.normalized = spread > kMinSpread ? (s.raw - lo) / spread : 0.0;
  }
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
                  const FusionWeights& weights) {
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
  MinMax(candidates, &FusionCandidate::lexical, &FusedCandidate::lexical, &fused);
  MinMax(candidates, &FusionCandidate::semantic, &FusedCandidate::semantic, &fused);
  const double temporal_scale = std::max(1.0, temporal_max);
  for (size_t i = 0; i < candidates.size(); ++i) {
    fused[i].temporal =
        SignalValue{true, candidates[i].temporal, candidates[i].temporal / temporal_scale};
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
    case FusionMode::kBlended:
      result.weights = EffectiveWeights(weights, has_semantic, has_lexical, true);
      for (auto& f : fused) {
        f.score = result.weights.semantic * f.semantic.normalized +
                  result.weights.lexical * f.lexical.normalized +
                  result.weights.temporal * f.temporal.normalized;
      }
      break;
  }
  std::sort(fused.begin(), fused.end(), [&](const FusedCandidate& a, const FusedCandidate& b) {
    if (a.score != b.score) return a.score > b.score;
    const FusionCandidate& ca = candidates[a.index];
    const FusionCandidate& cb = candidates[b.index];
    if (ca.id != cb.id) return ca.id < cb.id;
    return ca.scope < cb.scope;
  });
  result.ranked = std::move(fused);
  return result;
}

}  // namespace engram
