// MappedFile: a whole file mapped read-only into memory.
//
// The pages are the page cache's own: mapping a file that was read
// recently costs no copy and no allocation, and processes that map the
// same file share its memory. The map is populated up front (MAP_POPULATE)
// so that the first pass over it does not fault page by page. The bytes
// must not change while mapped; a file replaced by rename (as every writer
// in engram does) leaves an existing map on the old contents.
//
// Thread-safety: immutable after Open; Bytes() may be read from any thread.
#ifndef ENGRAM_SRC_COMMON_MAPPED_FILE_H_
#define ENGRAM_SRC_COMMON_MAPPED_FILE_H_

#include <memory>
#include <string>
#include <string_view>

#include "engram/status.h"

namespace engram {

class MappedFile {
 public:
  // Maps `path`. NotFound when it does not exist, IOError when it cannot
  // be opened, sized or mapped; each names the path. An empty file maps to
  // empty bytes.
  static Result<std::unique_ptr<MappedFile>> Open(const std::string& path);

  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // The file's bytes; the data is aligned to the page size.
  std::string_view Bytes() const { return {data_, size_}; }

 private:
  MappedFile(const char* data, size_t size) : data_(data), size_(size) {}

  const char* data_;
  size_t size_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_MAPPED_FILE_H_
