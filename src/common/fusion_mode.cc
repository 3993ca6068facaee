// Names of the fusion modes, for flags, configuration and reports.
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

}  // namespace engram
