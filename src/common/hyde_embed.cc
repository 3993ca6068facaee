// Names of the HyDE vector choices, for configuration and reports.
#include <string>
#include <string_view>

#include "engram/options.h"

namespace engram {

Result<HydeEmbed> ParseHydeEmbed(const std::string& text) {
  if (text == "query") return HydeEmbed::kQuery;
  if (text == "hypothesis") return HydeEmbed::kHypothesis;
  if (text == "both") return HydeEmbed::kBoth;
  return InvalidArgument("unknown value '" + text + "' (expected query, hypothesis or both)");
}

std::string_view HydeEmbedName(HydeEmbed embed) {
  switch (embed) {
    case HydeEmbed::kQuery:
      return "query";
    case HydeEmbed::kHypothesis:
      return "hypothesis";
    case HydeEmbed::kBoth:
      return "both";
  }
  return "?";
}

}  // namespace engram
