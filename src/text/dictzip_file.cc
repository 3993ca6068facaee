#include "src/text/dictzip_file.h"

#include <zlib.h>

#include <algorithm>

namespace engram {
namespace {

constexpr unsigned char kGzipId1 = 0x1f;
constexpr unsigned char kGzipId2 = 0x8b;
constexpr unsigned char kDeflate = 8;
constexpr unsigned kFlagHeaderCrc = 2;
constexpr unsigned kFlagExtra = 4;
constexpr unsigned kFlagName = 8;
constexpr unsigned kFlagComment = 16;
constexpr size_t kFixedHeader = 10;  // ID1 ID2 CM FLG MTIME(4) XFL OS
constexpr size_t kTrailer = 8;       // CRC32, ISIZE

uint32_t Le16(std::string_view b, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(b[at])) |
         static_cast<uint32_t>(static_cast<unsigned char>(b[at + 1])) << 8;
}

uint32_t Le32(std::string_view b, size_t at) { return Le16(b, at) | Le16(b, at + 2) << 16; }

// Inflates `in` into `*out`: raw deflate data (`window_bits` -15) or a
// whole gzip stream (15 + 16). True when the data ends where `in` ends
// (gzip) or has been read through (raw chunk, which ends with a flush, not
// an end of stream).
bool InflateInto(std::string_view in, int window_bits, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return false;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof(buffer);
    rc = inflate(&z, Z_SYNC_FLUSH);
    out->append(buffer, sizeof(buffer) - z.avail_out);
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // all input read
  }
  inflateEnd(&z);
  return window_bits < 0
             ? (rc == Z_OK || rc == Z_BUF_ERROR || rc == Z_STREAM_END) && z.avail_in == 0
             : rc == Z_STREAM_END;
}

// Skips a zero-terminated header string at `*at`; false when it runs off.
bool SkipString(std::string_view b, size_t* at) {
  const size_t end = b.find('\0', *at);
  if (end == std::string_view::npos) return false;
  *at = end + 1;
  return true;
}

}  // namespace

Result<DictzipFile> DictzipFile::Open(const std::string& path) {
  DictzipFile file;
  file.path_ = path;
  ENGRAM_ASSIGN_OR_RETURN(file.packed_, FileContents::Read(path));
  const std::string_view b = file.packed_->Bytes();
  const auto bad = [&path](const std::string& what) {
    return IOError("dictionary: " + path + ": " + what);
  };
  if (b.size() < kFixedHeader + kTrailer || static_cast<unsigned char>(b[0]) != kGzipId1 ||
      static_cast<unsigned char>(b[1]) != kGzipId2 ||
      static_cast<unsigned char>(b[2]) != kDeflate) {
    return bad("not a gzip file");
  }
  const unsigned flags = static_cast<unsigned char>(b[3]);
  size_t at = kFixedHeader;
  std::string_view chunk_table;  // RA's CHCNT sizes, two bytes each
  if (flags & kFlagExtra) {
    const size_t extra_end = at + 2 + Le16(b, at);
    if (extra_end > b.size()) return bad("gzip extra field runs past the file");
    for (size_t sub = at + 2; sub + 4 <= extra_end;) {
      const size_t data = sub + 4;
      const size_t data_end = data + Le16(b, sub + 2);
      if (data_end > extra_end) return bad("gzip extra subfield runs past its field");
      if (b[sub] == 'R' && b[sub + 1] == 'A') {
        if (data_end - data < 6 || Le16(b, data) != 1) return bad("unknown dictzip version");
        file.chunk_length_ = Le16(b, data + 2);
        const size_t count = Le16(b, data + 4);
        if (data + 6 + 2 * count > data_end || file.chunk_length_ == 0) {
          return bad("dictzip chunk table does not fit its field");
        }
        chunk_table = b.substr(data + 6, 2 * count);
      }
      sub = data_end;
    }
    at = extra_end;
  }
  if (((flags & kFlagName) && !SkipString(b, &at)) ||
      ((flags & kFlagComment) && !SkipString(b, &at))) {
    return bad("gzip header runs past the file");
  }
  if (flags & kFlagHeaderCrc) at += 2;
  if (at > b.size() - kTrailer) return bad("gzip header runs past the file");

  if (chunk_table.empty()) {
    // Plain gzip: the whole text now, as one chunk.
    std::string text;
    if (!InflateInto(b, 15 + 16, &text)) return bad("not a complete gzip file");
    file.size_ = text.size();
    file.chunk_length_ = std::max<size_t>(text.size(), 1);
    file.chunk_starts_ = {at, b.size() - kTrailer};
    file.chunks_.push_back(std::move(text));
    file.inflated_.push_back(true);
    return file;
  }
  file.chunk_starts_.push_back(at);
  for (size_t i = 0; i < chunk_table.size(); i += 2) {
    file.chunk_starts_.push_back(file.chunk_starts_.back() + Le16(chunk_table, i));
  }
  const size_t chunks = chunk_table.size() / 2;
  file.size_ = Le32(b, b.size() - 4);  // ISIZE: the text is far below 4 GiB
  if (file.chunk_starts_.back() > b.size() - kTrailer || file.size_ > chunks * file.chunk_length_ ||
      file.size_ + file.chunk_length_ <= chunks * file.chunk_length_) {
    return bad("dictzip chunk table does not match the file");
  }
  file.chunks_.resize(chunks);
  file.inflated_.resize(chunks, false);
  return file;
}

Status DictzipFile::Inflate(size_t chunk) {
  if (inflated_[chunk]) return Status::OK();
  const std::string_view packed = packed_->Bytes().substr(
      chunk_starts_[chunk], chunk_starts_[chunk + 1] - chunk_starts_[chunk]);
  const size_t expected = std::min(chunk_length_, size_ - chunk * chunk_length_);
  std::string text;
  if (!InflateInto(packed, -15, &text) || text.size() != expected) {
    return IOError("dictionary: " + path_ + ": chunk " + std::to_string(chunk + 1) +
                   " does not inflate to its length");
  }
  chunks_[chunk] = std::move(text);
  inflated_[chunk] = true;
  return Status::OK();
}

Result<std::string> DictzipFile::Read(size_t offset, size_t length) {
  if (offset > size_ || length > size_ - offset) {
    return InvalidArgument("dictionary: " + path_ + ": bytes " + std::to_string(offset) + "+" +
                           std::to_string(length) + " lie past the text's " +
                           std::to_string(size_));
  }
  std::string piece;
  piece.reserve(length);
  while (piece.size() < length) {
    const size_t at = offset + piece.size();
    const size_t chunk = at / chunk_length_;
    ENGRAM_RETURN_IF_ERROR(Inflate(chunk));
    const size_t within = at - chunk * chunk_length_;
    piece.append(chunks_[chunk], within,
                 std::min(length - piece.size(), chunks_[chunk].size() - within));
  }
  return piece;
}

}  // namespace engram
