// FileContents: a whole file read into the process's own memory.
//
// Read, not mapped: a mapped file that another process truncates kills
// the reader with SIGBUS at its next touch of a vanished page, and a
// model file or any other input can be replaced or cut short while a
// server runs for weeks. A copy costs one pass over the bytes (a few ms
// for the 48 MB model, from the page cache) and the memory of the copy;
// after Read, nothing done to the file reaches these bytes. The memory is
// page-aligned and read-only once filled.
//
// Thread-safety: immutable after Read; Bytes() may be read from any thread.
#ifndef ENGRAM_SRC_COMMON_FILE_CONTENTS_H_
#define ENGRAM_SRC_COMMON_FILE_CONTENTS_H_

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

  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;
  ~FileContents();

  // The file's bytes; the data is aligned to the page size.
  std::string_view Bytes() const { return {data_, size_}; }

 private:
  FileContents(const char* data, size_t size) : data_(data), size_(size) {}

  const char* data_;
  size_t size_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_FILE_CONTENTS_H_
