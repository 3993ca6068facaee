// The embedded model's tokenizer, with its real vocabulary, on any text.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>

#include "src/embed/use_lite_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const engram::UseLiteTokenizer* tokenizer = [] {
    std::ifstream in(std::string(ENGRAM_MODEL_PACKAGE_DIR) + "/dist/vocab.json");
    std::stringstream text;
    text << in.rdbuf();
    auto made = engram::UseLiteTokenizer::FromVocabJson(text.str());
    if (!made.ok()) std::abort();  // `make setup` fetches the package
    return made->release();
  }();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (int32_t id : tokenizer->Encode(text)) {
    if (id < 0) std::abort();
  }
  return 0;
}
