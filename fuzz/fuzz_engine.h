// For the targets that drive the request paths: one engine on a real
// SQLite file in a fresh temporary directory, with the hash embedder (so
// searches run the semantic signal too), and the MemoryApi over it. Made
// once per process; the directory is removed at exit.
#ifndef ENGRAM_FUZZ_FUZZ_ENGINE_H_
#define ENGRAM_FUZZ_FUZZ_ENGINE_H_

#include <cstdlib>
#include <memory>
#include <string>

#include "engram/engine.h"
#include "fuzz/fuzz_temp_dir.h"
#include "src/embed/hash_embedder.h"
#include "src/server/memory_api.h"

namespace engram::fuzz {

inline MemoryApi& FuzzedApi() {
  static MemoryApi* api = [] {
    EngineOptions options;
    options.db_path = FuzzTempDir() + "/memory.db";
    options.embedder = std::make_shared<HashEmbedder>(64);
    options.vector.background_backfill = false;
    auto engine = Engine::Open(options);
    if (!engine.ok()) std::abort();
    ServingConfig config;
    config.engine = options;
    // Leaked on purpose: it lives as long as the process.
    return new MemoryApi(engine->release(), RequestLimits{}, config,
                         [config]() -> Result<ServingConfig> { return config; });
  }();
  return *api;
}

}  // namespace engram::fuzz

#endif  // ENGRAM_FUZZ_FUZZ_ENGINE_H_
