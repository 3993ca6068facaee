// PlanSync: what an attach or refresh must write, from the files on disk and
// the file rows stored for the attachment. Reads the filesystem (through
// file_scanner.h), never the store.
//
// A file whose size and mtime match its row is not read. One that differs
// is read and hashed: the same hash only refreshes the row (a touch); a new
// hash, a new file, or chunker settings other than the stored ones
// (`rechunk`) cut it into chunks again. Stored files no longer found, or
// now skipped (grown past the size limit, turned binary), are removed.
//
// Thread-safety: thread-safe; holds no state.
#ifndef ENGRAM_SRC_CONTEXT_CONTEXT_SYNC_H_
#define ENGRAM_SRC_CONTEXT_CONTEXT_SYNC_H_

#include <cstddef>
#include <string>
#include <vector>

#include "engram/context.h"
#include "engram/status.h"
#include "src/context/chunker.h"
#include "src/context/file_scanner.h"
#include "src/store/chunk_store.h"

namespace engram {

struct SyncOptions {
  ScanOptions scan;
  ChunkerOptions chunker;
  // Cut every file again (the stored chunks were cut with other settings).
  bool rechunk = false;
};

// One file to write.
struct FileUpdate {
  StoredFile file;               // the row as it is now on disk
  bool added = false;            // no row before
  bool rechunked = false;        // false: only size or mtime moved; chunks stay
  std::vector<ChunkRow> chunks;  // when rechunked
};

struct SyncPlan {
  std::vector<FileUpdate> updates;
  std::vector<std::string> removed;  // paths of rows to delete
  size_t unchanged = 0;              // files left as they are (touches included)
  std::vector<SkippedFile> skipped;
};

// NotFound when a root does not exist.
Result<SyncPlan> PlanSync(const std::vector<std::string>& roots,
                          const std::vector<StoredFile>& stored, const SyncOptions& options);

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_CONTEXT_SYNC_H_
