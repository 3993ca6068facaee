// FileContents: a whole file read into the process's own memory, or
// mapped.
//
// Read by default, not mapped: a mapped file that another process
// truncates kills the reader with SIGBUS at its next touch of a vanished
// page, and a model file or any other input can be replaced or cut short
// while a server runs for weeks. A copy costs one pass over the bytes and
// the memory of the copy (for the 48 MB model, some 60 ms of a one-shot
// process here, most of it page faults); after Read, nothing done to the file
// reaches these bytes. The memory is page-aligned and read-only once
// filled. Map is for a process that lives for one command and touches part
// of a large file: it pays only for the pages it reads, and accepts the
// SIGBUS risk for its short life (a file replaced by rename, as engram
// writes its files, is safe either way).
//
// Thread-safety: immutable once read or mapped; Bytes() may be read from
// any thread.
#ifndef ENGRAM_SRC_COMMON_FILE_CONTENTS_H_
#define ENGRAM_SRC_COMMON_FILE_CONTENTS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram {

class FileContents {
 public:
  // Reads `path` whole. NotFound when it does not exist, IOError when it
  // cannot be opened, sized or read, or changes size while read; each
  // names the path. An empty file gives empty bytes.
  static Result<std::unique_ptr<FileContents>> Read(const std::string& path);
  // Maps `path` read-only (private), with Read's errors. The mapping starts
  // on a 2 MiB boundary and asks for large pages, so a file the page cache
  // reads for it is held in large folios, and mapping those costs a fault
  // per folio instead of one per 16 pages: for the 48 MB model on a virtual
  // machine whose faults cost ~35 us, about 1 ms instead of about 25 ms
  // (docs/ARCHITECTURE.md, "One-shot processes").
  static Result<std::unique_ptr<FileContents>> Map(const std::string& path);

  // What identifies the file's version as it was opened: a file rewritten
  // in place or replaced has another (its ctime changes, which no user can
  // set).
  struct Stamp {
    uint64_t device = 0;
    uint64_t inode = 0;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    int64_t ctime_ns = 0;
    bool operator==(const Stamp&) const = default;
    // "DEVICE INODE SIZE MTIME_NS CTIME_NS", for stamp lines that record
    // which version of a file something was made from.
    std::string ToString() const;
  };

  // The stamp of the file at `path` as it is now, without reading it.
  // NotFound when it does not exist, IOError when it cannot be seen.
  static Result<Stamp> StampOf(const std::string& path);

  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;
  ~FileContents();

  // The file's bytes; the data is aligned to the page size.
  std::string_view Bytes() const { return {data_, size_}; }
  // The file's stamp when it was opened.
  const Stamp& FileStamp() const { return stamp_; }

 private:
  FileContents(const char* data, size_t size, const Stamp& stamp)
      : data_(data), size_(size), stamp_(stamp) {}
  static Result<std::unique_ptr<FileContents>> Open(const std::string& path, bool map);

  const char* data_;
  size_t size_;
  Stamp stamp_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_FILE_CONTENTS_H_
