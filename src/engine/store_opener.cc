#include "src/engine/store_opener.h"

#include <filesystem>
#include <limits>
#include <string>
#include <utility>

#include "src/common/hash.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/postgres/pg_store.h"
#include "src/store/sqlite/sqlite_store.h"
#include "src/text/analyzer.h"

namespace engram {
namespace {

constexpr char kAnalyzerVersionKey[] = "analyzer_version";

// Rebuilds the full-text index when it was built by another analyzer.
Status SyncAnalyzerVersion(Store* store) {
  const std::string current = std::to_string(kAnalyzerVersion);
  auto stored = store->GetMeta(kAnalyzerVersionKey);
  if (stored.ok() && *stored == current) return Status::OK();
  if (!stored.ok() && stored.status().code() != StatusCode::kNotFound) return stored.status();
  return store->Transact([&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(store->facts().RebuildLexicalIndex(&CountFactText));
    ENGRAM_RETURN_IF_ERROR(store->chunks().RebuildLexicalIndex(&CountTerms));
    return store->SetMeta(kAnalyzerVersionKey, current);
  });
}

// Where a process keeps the files it derives from the PostgreSQL store at
// `url`: beside its SQLite file's place, under a name of the URL's own (a
// hash, so no credential of the URL shows in a file name).
std::string PostgresSidecarPrefix(const EngineOptions& opts) {
  const std::filesystem::path dir = std::filesystem::path(opts.db_path).parent_path();
  return (dir / ("postgres-" + Sha256Hex(opts.store_url).substr(0, 16))).string();
}

// The store `opts` names, opened as every connection the engine opens to it.
Result<std::unique_ptr<Store>> OpenStoreConnection(const EngineOptions& opts) {
  if (!opts.store_url.empty()) {
    PgStoreOptions store_options;
    store_options.url = opts.store_url;
    store_options.sidecar_prefix = PostgresSidecarPrefix(opts);
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgStore> store, PgStore::Open(store_options));
    return std::unique_ptr<Store>(std::move(store));
  }
  SqliteStoreOptions store_options;
  store_options.path = opts.db_path;
  store_options.create_if_missing = opts.create_if_missing;
  store_options.busy_timeout_ms = opts.busy_timeout_ms;
  // SQLite caps the map at its compile-time largest (2 GB by default).
  if (opts.map_store) store_options.mmap_bytes = std::numeric_limits<int64_t>::max();
  store_options.keep_log_below_bytes = opts.keep_log_below_bytes;
  store_options.keep_version_links = opts.keep_version_links;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> store, SqliteStore::Open(store_options));
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace

Result<std::unique_ptr<Store>> OpenEngineStore(const EngineOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, OpenStoreConnection(options));
  ENGRAM_RETURN_IF_ERROR(SyncAnalyzerVersion(store.get()));
  return store;
}

}  // namespace engram
