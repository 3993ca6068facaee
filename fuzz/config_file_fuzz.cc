// Settings resolution with any bytes as the TOML config file: resolves
// (bad values become warnings) or refuses the file with a message.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include "fuzz/fuzz_temp_dir.h"
#include "src/config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& dir = engram::fuzz::FuzzTempDir();
  const std::string path = dir + "/config.toml";
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  const engram::Environment env = [&](const std::string& name) -> std::optional<std::string> {
    if (name == "ENGRAM_CONFIG") return path;
    if (name == "HOME") return dir;
    return std::nullopt;
  };
  auto config = engram::ResolveConfig(env, {});
  if (!config.ok() && config.status().message().empty()) std::abort();
  return 0;
}
