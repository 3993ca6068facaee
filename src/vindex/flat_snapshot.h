// The snapshot file of an exactly searched scope (VectorOptions::
// flat_snapshots): every label and vector of an index in one file, read
// back by mapping it, with no per-vector work (MappedFlatIndex). The file,
// in host byte order (a cache of the machine that wrote it):
//
//   magic "ENGRFLAT", u32 version 3, u32 0, u64 dimension, u64 rows,
//   u64 stamp bytes, i64 origin.space_created_at, i64 origin.removed,
//   the stamp, zero bytes up to a multiple of 8,
//   i64 labels, ascending, one per row,
//   i64 fact rowids, the fact of each row's label,
//   zero bytes up to a multiple of 64,
//   f32 vectors, rows x dimension, unit length, in the labels' order,
//   u64 ChecksumOf (index_file.h) of every byte before it.
//
// The checksum is computed over the whole file the first time a process
// opens it once the file is a second old; a stamp beside it
// (PATH.verified, src/common/verified_stamp.h) then spares later opens the
// pass over every vector until the file is replaced.
//
// Thread-safety: functions of their arguments; the file system decides
// what concurrent writers see (writes are atomic renames).
#ifndef ENGRAM_SRC_VINDEX_FLAT_SNAPSHOT_H_
#define ENGRAM_SRC_VINDEX_FLAT_SNAPSHOT_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engram/status.h"
#include "src/common/file_contents.h"
#include "src/vindex/vector_index.h"

namespace engram {

// Where a snapshot's rows were read from: the store's state in which they
// were every vector of their scope (VectorsVersion::space_created_at and
// ::removed of that read), so that a reader can tell, with the rows' facts,
// whether they still are without reading every label (VectorCache).
struct FlatSnapshotOrigin {
  int64_t space_created_at = 0;
  int64_t removed = 0;
};

// Writes every vector of `index` with `stamp`, `origin` and the fact of
// each label (`fact_of(label)`) to `path` atomically (temporary file,
// fsync, rename), mode 0600; Internal, writing nothing, when a label has
// no fact.
Status SaveFlatSnapshot(const VectorIndex& index,
                        const std::function<std::optional<int64_t>(int64_t)>& fact_of,
                        const std::string& path, const std::string& stamp,
                        const FlatSnapshotOrigin& origin);

// A snapshot file, mapped and checked: its checksum, and that it holds
// `dimension`-d vectors under ascending labels.
struct FlatSnapshot {
  std::unique_ptr<FileContents> file;  // the mapping the pointers below point into
  std::string stamp;
  FlatSnapshotOrigin origin;
  size_t rows = 0;
  const int64_t* labels = nullptr;
  const int64_t* fact_rowids = nullptr;  // per row, the fact of its label
  const float* vectors = nullptr;
};

// NotFound when `path` does not exist; FailedPrecondition when it is a
// snapshot of another version of this format; Corruption naming it when it is not
// a snapshot of `dimension`-d vectors, is cut short, fails its checksum
// (when its stamp does not vouch for it) or has labels out of order;
// IOError when it cannot be mapped.
Result<FlatSnapshot> OpenFlatSnapshot(const std::string& path, size_t dimension);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_FLAT_SNAPSHOT_H_
