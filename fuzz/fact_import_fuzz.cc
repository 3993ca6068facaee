// The import readers on any bytes, read as JSONL and as CSV: every record
// parses or is refused with a message, and every fact that passes the
// engine's checks builds and prints.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "src/engine/fact_validator.h"
#include "src/store/fact_codec.h"

namespace {

void Check(const engram::ParsedRecord& record) {
  if (!record.fact.ok()) {
    if (record.fact.status().message().empty()) std::abort();
    return;
  }
  const engram::NewFact& fact = *record.fact;
  if (!engram::ValidateNewFact(fact, engram::LimitOptions{}).ok()) return;
  const engram::Fact built = engram::BuildFact(fact, 1700000000000);
  if (engram::FactToJsonLine(built).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::istringstream jsonl(text);
  engram::ReadFactsJsonl(jsonl, Check);
  std::istringstream csv(text);
  engram::ReadFactsCsv(csv, Check);
  return 0;
}
