// A .gitignore of any bytes, and paths matched against it (alone, and
// pushed for the root and a subdirectory): the text before the first NUL
// byte is the file, each line after it a path.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "src/context/gitignore.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t split = input.find('\0');
  const engram::GitignoreFile file = engram::GitignoreFile::Parse(input.substr(0, split));
  engram::GitignoreStack stack;
  stack.Push("", file);
  stack.Push("sub", file);
  if (split == std::string_view::npos) {
    stack.Ignored("src/main.cc", false);
    stack.Ignored("sub/build", true);
    return 0;
  }
  std::string_view paths = input.substr(split + 1);
  while (!paths.empty()) {
    const size_t end = paths.find('\n');
    const std::string_view path = paths.substr(0, end);
    file.Check(path, false);
    stack.Ignored(path, true);
    engram::GlobMatch(input.substr(0, split), path);
    paths.remove_prefix(end == std::string_view::npos ? paths.size() : end + 1);
  }
  return 0;
}
