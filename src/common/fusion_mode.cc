// Names of the fusion modes, for flags, configuration and reports, and the
// defaults that depend on the embedding provider.
#include <string>
#include <string_view>

#include "engram/options.h"

namespace engram {

Result<FusionMode> ParseFusionMode(const std::string& text) {
  if (text == "blended") return FusionMode::kBlended;
  if (text == "lexical") return FusionMode::kLexical;
  if (text == "temporal") return FusionMode::kTemporal;
  if (text == "semantic") return FusionMode::kSemantic;
  if (text == "rrf") return FusionMode::kRrf;
  return InvalidArgument("unknown mode '" + text +
                         "' (expected blended, lexical, semantic, rrf or temporal)");
}

std::string_view FusionModeName(FusionMode mode) {
  switch (mode) {
    case FusionMode::kBlended:
      return "blended";
    case FusionMode::kLexical:
      return "lexical";
    case FusionMode::kTemporal:
      return "temporal";
    case FusionMode::kSemantic:
      return "semantic";
    case FusionMode::kRrf:
      return "rrf";
  }
  return "?";
}

ProviderDefaults DefaultsForProvider(const std::string& provider_spec) {
  const std::string provider = provider_spec.substr(0, provider_spec.find(':'));
  ProviderDefaults d;  // the embedded model's, as the structs' defaults
  if (provider != "local") {
    d.weights = FusionWeights{0.55, 0.30, 0.15};
    d.min_cosine = 0.25;
  }
  return d;
}

void ApplyProviderDefaults(const std::string& provider_spec, EngineOptions* options) {
  const ProviderDefaults d = DefaultsForProvider(provider_spec);
  options->fusion.weights = d.weights;
  options->vector.min_cosine = d.min_cosine;
}

}  // namespace engram
