// ParseJson on any bytes: refuses or parses, and what it parses dumps to
// text that parses back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "src/common/json_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = engram::ParseJson(text, "input");
  if (!parsed.ok()) return 0;
  auto again = engram::ParseJson(engram::DumpJson(*parsed), "dump");
  if (!again.ok() || *again != *parsed) std::abort();
  return 0;
}
