// The model file reader on any bytes: the input is a file body, to which
// the right checksum trailer is appended, so the fuzzer gets past the
// checksum to the header, vocabulary, tokenizer tables and tensor tables.
// Reads or refuses with a message; a tokenizer made of tables that read is
// refused with a message or encodes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/fuzz_temp_dir.h"
#include "src/common/hash.h"
#include "src/embed/use_lite_model_file.h"
#include "src/embed/use_lite_tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = engram::fuzz::FuzzTempDir();
  std::string bytes(reinterpret_cast<const char*>(data), size);
  const uint64_t checksum = engram::FastChecksum64(bytes);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((checksum >> (8 * i)) & 0xff));
  const std::string path = dir + "/model.bin";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  auto model = engram::ReadUseLiteModelFile(path);
  if (!model.ok()) {
    if (model.status().message().empty()) std::abort();
    return 0;
  }
  // Tables that read are checked before any lookup walks them; tables that
  // pass stay inside themselves on any text.
  auto tokenizer = engram::UseLiteTokenizer::FromTables(model->tokenizer, model->storage);
  if (!tokenizer.ok()) {
    if (tokenizer.status().message().empty()) std::abort();
    return 0;
  }
  for (const char* text : {"hello world", "a b c", "ação \xff\xfe zz"}) (*tokenizer)->Encode(text);
  return 0;
}
