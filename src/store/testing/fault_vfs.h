// FaultVfs: a SQLite VFS that hands every call to the one below it (the
// default, "unix") and fails the calls a test arms, in the manner of
// SQLite's own test VFS and LevelDB's fault-injection Env. It is the
// file-system seam below the store: a test installs it as SQLite's
// default VFS, so every connection the code under test opens from then
// on goes through it.
//
//   testing::FaultVfs vfs;   // installed until it goes out of scope
//   vfs.Arm({.op = FileOp::kWrite, .skip = 3, .error = SQLITE_FULL});
//   ... the fourth write and every later one fail as a full disk would
//   vfs.Disarm();            // the disk has room again
//
// A lock is a lock of the database file or of the WAL's shared memory.
// An armed fault fails the (skip+1)-th call of its kind and every later
// one until Disarm (a full disk or a failing device stays so). The VFS
// offers no memory map (xFetch), so every read of the file goes through
// xRead and can fail.
//
// Thread-safety: Arm, Disarm and the counters may be called from any
// thread; one FaultVfs may exist at a time.
#ifndef ENGRAM_SRC_STORE_TESTING_FAULT_VFS_H_
#define ENGRAM_SRC_STORE_TESTING_FAULT_VFS_H_

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace engram::testing {

enum class FileOp { kRead, kWrite, kSync, kTruncate, kLock, kOpen };

struct FileFault {
  FileOp op = FileOp::kWrite;
  // Calls of `op` let through before the first failure; default 0.
  int64_t skip = 0;
  // The SQLite error the failed call returns; 0 (default) picks the one
  // SQLite's unix VFS returns for an I/O error of that kind
  // (SQLITE_IOERR_READ, _WRITE, _FSYNC, _TRUNCATE, _LOCK, SQLITE_CANTOPEN).
  // SQLITE_FULL on a write is a full disk (ENOSPC).
  int error = 0;
  // Only files whose name ends with this; default "", every file
  // ("-wal": the write-ahead log, ".db": the database itself).
  std::string file_suffix;
};

class FaultVfs {
 public:
  // Registers the VFS as SQLite's default; the destructor restores the
  // previous default. Connections opened before keep their VFS.
  FaultVfs();
  ~FaultVfs();
  FaultVfs(const FaultVfs&) = delete;
  FaultVfs& operator=(const FaultVfs&) = delete;

  // Arms `fault` and resets the counters; replaces an armed one.
  void Arm(const FileFault& fault);
  // No call fails from now on.
  void Disarm();
  // Calls of the armed kind seen since Arm, and how many of them failed.
  int64_t calls() const;     // NOLINT(readability-identifier-naming): accessor
  int64_t failures() const;  // NOLINT(readability-identifier-naming): accessor
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_STORE_TESTING_FAULT_VFS_H_
