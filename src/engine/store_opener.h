// How the engine opens the store its options name: a PostgreSQL database
// when store_url is set, else the SQLite file db_path (created when
// missing and create_if_missing).
//
// Thread-safety: functions; the stores they return are the caller's.
#ifndef ENGRAM_SRC_ENGINE_STORE_OPENER_H_
#define ENGRAM_SRC_ENGINE_STORE_OPENER_H_

#include <memory>

#include "engram/options.h"
#include "engram/status.h"
#include "src/store/store.h"

namespace engram {

// A connection to the store `options` names, as every connection the
// engine opens to it, with its full-text indexes rebuilt first when this
// build's analyzer is not the one that made them: what Engine::Open and
// MigrateStore use.
Result<std::unique_ptr<Store>> OpenEngineStore(const EngineOptions& options);

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_STORE_OPENER_H_
