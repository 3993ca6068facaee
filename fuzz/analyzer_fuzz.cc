// The analyser (the terms of facts and queries) on any valid UTF-8 text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/common/utf8.h"
#include "src/text/analyzer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (!engram::IsValidUtf8(text)) return 0;  // callers check first
  engram::Analyze(text);
  return 0;
}
