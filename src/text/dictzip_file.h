// DictzipFile: the text of a dictd `.dict.dz` file, read a piece at a time.
// dictzip, dictd's format, is a gzip file whose header's extra field "RA"
// (version 1) lists the compressed size of each chunk of CHLEN uncompressed
// bytes, every chunk deflated on its own (a full flush ends each one), so a
// piece of the text is had by inflating only the chunks it spans: a lookup
// in Debian's FreeDict eng-por (760 KB of text in 14 chunks) inflates one or
// two, not all. A plain gzip file, without the field, is inflated whole at
// Open.
//
// Open reads the file and checks its header and chunk table against its
// size; a chunk is inflated when a piece first needs it and kept. A chunk
// whose data does not inflate to its length is an error of every Read that
// needs it.
//
// Thread-safety: none; a caller shares one under its own lock.
#ifndef ENGRAM_SRC_TEXT_DICTZIP_FILE_H_
#define ENGRAM_SRC_TEXT_DICTZIP_FILE_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/common/file_contents.h"

namespace engram {

class DictzipFile {
 public:
  // Reads `path`. NotFound when it does not exist; IOError naming it when
  // it is not a gzip file, its chunk table does not fit the file, or (plain
  // gzip) it does not inflate completely.
  static Result<DictzipFile> Open(const std::string& path);

  // Bytes of the uncompressed text.
  size_t size() const { return size_; }

  // The text's bytes [offset, offset + length), which must lie within
  // size(). IOError naming the file and the chunk that does not inflate.
  Result<std::string> Read(size_t offset, size_t length);

 private:
  DictzipFile() = default;
  Status Inflate(size_t chunk);

  std::string path_;
  std::unique_ptr<FileContents> packed_;
  size_t size_ = 0;
  size_t chunk_length_ = 0;           // uncompressed bytes per chunk (the last may be shorter)
  std::vector<size_t> chunk_starts_;  // where each chunk's deflate data starts, then its end
  std::vector<std::string> chunks_;   // inflated, where inflated_ says so
  std::vector<bool> inflated_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_TEXT_DICTZIP_FILE_H_
