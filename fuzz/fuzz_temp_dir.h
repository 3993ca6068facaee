// A temporary directory for a fuzz target's files: made once per process
// under the system's temporary directory, removed at exit.
#ifndef ENGRAM_FUZZ_FUZZ_TEMP_DIR_H_
#define ENGRAM_FUZZ_FUZZ_TEMP_DIR_H_

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace engram::fuzz {

inline const std::string& FuzzTempDir() {
  // Leaked on purpose: it must outlive the exit handler that removes it.
  static const std::string* dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "engram-fuzz-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return new std::string(pattern);
  }();
  static const bool removed_at_exit = [] {
    std::atexit([] { std::filesystem::remove_all(*dir); });
    return true;
  }();
  (void)removed_at_exit;
  return *dir;
}

}  // namespace engram::fuzz

#endif  // ENGRAM_FUZZ_FUZZ_TEMP_DIR_H_
