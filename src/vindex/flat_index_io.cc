// FlatIndex::SaveSnapshot and LoadSnapshot (flat_index.h). The file:
//
//   magic "ENGRFLAT", u32 version 1, u32 0, u64 dimension, u64 rows,
//   u64 stamp bytes, the stamp, zero bytes up to a multiple of 8,
//   i64 label of each row, f32 rows (rows x dimension, unit length),
//   u64 ChecksumOf (index_file.h) of every byte before it.
//
// Host byte order: the file is a cache of the machine that wrote it.
#include <cstring>
#include <string_view>
#include <utility>

#include "src/common/file_contents.h"
#include "src/vindex/flat_index.h"
#include "src/vindex/index_file.h"

namespace engram {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'F', 'L', 'A', 'T'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = sizeof(kMagic) + 2 * sizeof(uint32_t) + 3 * sizeof(uint64_t);

size_t PaddedStamp(size_t stamp_bytes) { return (stamp_bytes + 7) / 8 * 8; }

Status Bad(const std::string& path, const std::string& cause) {
  return Corruption("vindex: load flat snapshot: " + path + ": " + cause);
}

}  // namespace

Status FlatIndex::SaveSnapshot(const std::string& path, const std::string& stamp) const {
  std::string out(kMagic, sizeof(kMagic));
  PutValue(kVersion, &out);
  PutValue(uint32_t{0}, &out);
  PutValue(static_cast<uint64_t>(dimension_), &out);
  PutValue(static_cast<uint64_t>(labels_.size()), &out);
  PutValue(static_cast<uint64_t>(stamp.size()), &out);
  out += stamp;
  out.resize(kHeaderBytes + PaddedStamp(stamp.size()), '\0');
  out.append(reinterpret_cast<const char*>(labels_.data()), labels_.size() * sizeof(int64_t));
  out.append(reinterpret_cast<const char*>(rows_.data()), rows_.size() * sizeof(float));
  PutValue(ChecksumOf(out), &out);
  return WriteFileAtomically(path, out);
}

Result<std::unique_ptr<FlatIndex>> FlatIndex::LoadSnapshot(const std::string& path,
                                                           size_t dimension,
                                                           FlatIndexOptions options,
                                                           std::string* stamp) {
  // Mapped only while copied out: the index owns its rows.
  auto mapped = FileContents::Map(path);
  if (!mapped.ok()) {
    if (mapped.status().code() == StatusCode::kNotFound) return mapped.status();
    return IOError("vindex: load flat snapshot: " + mapped.status().message());
  }
  const std::string_view bytes = (*mapped)->Bytes();
  if (bytes.size() < kHeaderBytes + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return Bad(path, "not a flat index snapshot");
  }
  ByteReader header(bytes.substr(sizeof(kMagic)));
  uint32_t version = 0;
  uint32_t reserved = 0;
  uint64_t file_dimension = 0;
  uint64_t rows = 0;
  uint64_t stamp_bytes = 0;
  header.Get(&version);
  header.Get(&reserved);
  header.Get(&file_dimension);
  header.Get(&rows);
  header.Get(&stamp_bytes);
  if (version != kVersion) return Bad(path, "version " + std::to_string(version));
  if (file_dimension != dimension) {
    return Bad(path, "holds " + std::to_string(file_dimension) + "-d vectors, not " +
                         std::to_string(dimension) + "-d");
  }
  const uint64_t limit = bytes.size();
  const uint64_t labels_at = kHeaderBytes + PaddedStamp(stamp_bytes);
  const uint64_t row_bytes = dimension * sizeof(float);
  if (stamp_bytes > limit || row_bytes == 0 ||
      rows > (limit - sizeof(uint64_t)) / (sizeof(int64_t) + row_bytes) ||
      labels_at + rows * (sizeof(int64_t) + row_bytes) + sizeof(uint64_t) != limit) {
    return Bad(path, "its size does not match its header");
  }
  const std::string_view body = bytes.substr(0, limit - sizeof(uint64_t));
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body.size(), sizeof(stored));
  if (stored != ChecksumOf(body)) return Bad(path, "checksum mismatch");

  auto index = std::make_unique<FlatIndex>(dimension, options);
  index->labels_.resize(rows);
  std::memcpy(index->labels_.data(), bytes.data() + labels_at, rows * sizeof(int64_t));
  index->rows_.resize(rows * dimension);
  std::memcpy(index->rows_.data(), bytes.data() + labels_at + rows * sizeof(int64_t),
              rows * row_bytes);
  index->row_of_.reserve(rows);
  for (size_t row = 0; row < rows; ++row) {
    if (!index->row_of_.emplace(index->labels_[row], row).second) {
      return Bad(path, "label " + std::to_string(index->labels_[row]) + " appears twice");
    }
  }
  if (stamp != nullptr) stamp->assign(bytes.data() + kHeaderBytes, stamp_bytes);
  return index;
}

}  // namespace engram
