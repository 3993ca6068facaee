// Writes dictzip files for tests (dictzip_file.h describes the format):
// `text` in chunks of `chunk_length` bytes, each deflated on its own and
// ended by a full flush, behind a gzip header whose "RA" field lists the
// chunks' compressed sizes.
#ifndef ENGRAM_SRC_TEXT_DICTZIP_WRITER_FOR_TEST_H_
#define ENGRAM_SRC_TEXT_DICTZIP_WRITER_FOR_TEST_H_

#include <zlib.h>

#include <fstream>
#include <string>
#include <vector>

namespace engram::testing {

inline void PutLe16(std::string* out, size_t v) {
  out->push_back(static_cast<char>(v & 0xff));
  out->push_back(static_cast<char>((v >> 8) & 0xff));
}

inline void PutLe32(std::string* out, size_t v) {
  PutLe16(out, v & 0xffff);
  PutLe16(out, (v >> 16) & 0xffff);
}

// The file's bytes; false from `ok` when zlib fails.
inline std::string Dictzip(const std::string& text, size_t chunk_length, bool* ok) {
  *ok = false;
  z_stream z{};
  if (deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return {};
  std::vector<size_t> sizes;
  std::string data;
  for (size_t at = 0; at < text.size(); at += chunk_length) {
    const std::string chunk = text.substr(at, chunk_length);
    const bool last = at + chunk_length >= text.size();
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(chunk.data()));
    z.avail_in = static_cast<uInt>(chunk.size());
    const size_t before = data.size();
    int rc = Z_OK;
    do {
      char buffer[4096];
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof(buffer);
      rc = deflate(&z, last ? Z_FINISH : Z_FULL_FLUSH);
      data.append(buffer, sizeof(buffer) - z.avail_out);
    } while (z.avail_out == 0 || (last && rc != Z_STREAM_END));
    sizes.push_back(data.size() - before);
  }
  deflateEnd(&z);
  std::string out = {'\x1f', '\x8b', '\x08', '\x04', 0, 0, 0, 0, 0, '\x03'};
  PutLe16(&out, 10 + 2 * sizes.size());  // XLEN
  out += "RA";
  PutLe16(&out, 6 + 2 * sizes.size());
  PutLe16(&out, 1);  // version
  PutLe16(&out, chunk_length);
  PutLe16(&out, sizes.size());
  for (const size_t s : sizes) PutLe16(&out, s);
  out += data;
  PutLe32(&out,
          crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  PutLe32(&out, text.size());
  *ok = true;
  return out;
}

inline bool WriteDictzip(const std::string& path, const std::string& text, size_t chunk_length) {
  bool ok = false;
  const std::string bytes = Dictzip(text, chunk_length, &ok);
  std::ofstream(path, std::ios::binary) << bytes;
  return ok;
}

}  // namespace engram::testing

#endif  // ENGRAM_SRC_TEXT_DICTZIP_WRITER_FOR_TEST_H_
