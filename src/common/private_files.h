// Files and directories only their owner can open (docs/ARCHITECTURE.md,
// "Private by default"). Memories are private data: every directory engram
// creates for a store is made 0700 and every file 0600, whatever the umask.
// What already exists keeps its mode: engram never changes the permissions
// of a file or directory it did not create. Thread-safe.
#ifndef ENGRAM_SRC_COMMON_PRIVATE_FILES_H_
#define ENGRAM_SRC_COMMON_PRIVATE_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "engram/status.h"

namespace engram {

// Mode of what engram creates.
inline constexpr unsigned kPrivateDirectoryMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// Creates the missing directories of `dir` (parents first), each 0700.
// IOError naming the directory that could not be made.
Status CreatePrivateDirectories(const std::string& dir);

// Creates `path` as an empty file, 0600, when nothing is there; sets
// `*created` (when given) to whether it did. An existing file is left
// untouched. IOError naming the path when it cannot be created.
Status CreatePrivateFile(const std::string& path, bool* created = nullptr);

// Writes `bytes` to a new 0600 file beside `path` (PATH.tmp.PID.N), syncs
// it and renames it over `path`: readers see the old file or the new one,
// never a part, and processes writing one path at once each rename a whole
// file of their own. IOError naming the file (NotFound when its directory
// is missing); the temporary file is removed on failure.
Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// A file written in pieces and put in place whole: Open creates a new 0600
// temporary file beside `path` (PATH.tmp.PID.N), Append writes to it, and
// Commit syncs it and renames it over `path`, so readers see the old file
// or the new one, never a part. A writer dropped before Commit removes its
// temporary file. Errors as WriteFileAtomically's. Movable, not copyable;
// one thread at a time.
//
// A large file is written behind (on Linux): each kWriteBehindBytes that
// Append writes are handed to the disk at once, and Append waits for the
// window before them, so the file never holds more than two windows of
// unwritten pages. Its final sync is then short, and a sync of another
// file on the same disk (the store's log, synced by a checkpoint) never
// waits behind hundreds of megabytes (docs/ARCHITECTURE.md, "Large scopes
// that stay live").
class PrivateFileWriter {
 public:
  static Result<PrivateFileWriter> Open(const std::string& path);
  PrivateFileWriter(PrivateFileWriter&& other) noexcept;
  PrivateFileWriter& operator=(PrivateFileWriter&& other) noexcept;
  PrivateFileWriter(const PrivateFileWriter&) = delete;
  PrivateFileWriter& operator=(const PrivateFileWriter&) = delete;
  ~PrivateFileWriter();

  static constexpr uint64_t kWriteBehindBytes = uint64_t{8} << 20;

  Status Append(std::string_view bytes);
  // Syncs, closes and renames; the writer is spent whatever it returns.
  Status Commit();
  // The temporary file's path, while it is there.
  const std::string& TempPath() const { return temp_path_; }

 private:
  PrivateFileWriter(std::string path, std::string temp_path, int fd)
      : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd) {}
  // Closes and removes the temporary file, if any.
  void Discard();
  // Hands each whole window written since the last call to the disk.
  void WriteBehind();

  std::string path_;
  std::string temp_path_;
  int fd_ = -1;
  uint64_t written_ = 0;         // bytes appended
  uint64_t handed_to_disk_ = 0;  // of which written behind (whole windows)
};

// Renames `from` over `to` (atomic on POSIX); on failure `from` is removed
// and the error names both.
Status RenameFile(const std::string& from, const std::string& to);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_PRIVATE_FILES_H_
