#include "src/vindex/flat_snapshot.h"

#include <cstring>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "src/common/private_files.h"
#include "src/common/verified_stamp.h"
#include "src/vindex/index_file.h"

namespace engram {
namespace {

constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'F', 'L', 'A', 'T'};
constexpr uint32_t kVersion = 3;
constexpr size_t kHeaderBytes =
    sizeof(kMagic) + 2 * sizeof(uint32_t) + 3 * sizeof(uint64_t) + 2 * sizeof(int64_t);
constexpr size_t kVectorAlignment = 64;

uint64_t RoundUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }

// Where the labels, the fact rowids and the vectors start, for a stamp of
// `stamp_bytes`.
uint64_t LabelsAt(uint64_t stamp_bytes) { return kHeaderBytes + RoundUp(stamp_bytes, 8); }
uint64_t FactsAt(uint64_t stamp_bytes, uint64_t rows) {
  return LabelsAt(stamp_bytes) + rows * sizeof(int64_t);
}
uint64_t VectorsAt(uint64_t stamp_bytes, uint64_t rows) {
  return RoundUp(FactsAt(stamp_bytes, rows) + rows * sizeof(int64_t), kVectorAlignment);
}

Status Bad(const std::string& path, const std::string& cause) {
  return Corruption("vindex: read flat snapshot: " + path + ": " + cause);
}

}  // namespace

Status SaveFlatSnapshot(const VectorIndex& index,
                        const std::function<std::optional<int64_t>(int64_t)>& fact_of,
                        const std::string& path, const std::string& stamp,
                        const FlatSnapshotOrigin& origin) {
  const std::vector<int64_t> labels = index.Labels();
  std::vector<int64_t> facts;
  facts.reserve(labels.size());
  for (const int64_t label : labels) {
    const std::optional<int64_t> fact = fact_of(label);
    if (!fact) {
      return Internal("vindex: save flat snapshot: label " + std::to_string(label) +
                      " has no fact");
    }
    facts.push_back(*fact);
  }
  const size_t dimension = index.Dimension();
  std::string out(kMagic, sizeof(kMagic));
  PutValue(kVersion, &out);
  PutValue(uint32_t{0}, &out);
  PutValue(static_cast<uint64_t>(dimension), &out);
  PutValue(static_cast<uint64_t>(labels.size()), &out);
  PutValue(static_cast<uint64_t>(stamp.size()), &out);
  PutValue(origin.space_created_at, &out);
  PutValue(origin.removed, &out);
  out += stamp;
  out.resize(LabelsAt(stamp.size()), '\0');
  out.append(reinterpret_cast<const char*>(labels.data()), labels.size() * sizeof(int64_t));
  out.append(reinterpret_cast<const char*>(facts.data()), facts.size() * sizeof(int64_t));
  out.resize(VectorsAt(stamp.size(), labels.size()), '\0');
  out.reserve(out.size() + labels.size() * dimension * sizeof(float) + sizeof(uint64_t));
  for (const int64_t label : labels) {
    const std::span<const float> v = index.Vector(label);
    if (v.size() != dimension) {
      return Internal("vindex: save flat snapshot: label " + std::to_string(label) +
                      " has no vector of its own");
    }
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  PutValue(ChecksumOf(out), &out);
  return WriteFileAtomically(path, out);
}

Result<FlatSnapshot> OpenFlatSnapshot(const std::string& path, size_t dimension) {
  FlatSnapshot snapshot;
  auto mapped = FileContents::Map(path);
  if (!mapped.ok()) {
    if (mapped.status().code() == StatusCode::kNotFound) return mapped.status();
    return IOError("vindex: read flat snapshot: " + mapped.status().message());
  }
  snapshot.file = std::move(*mapped);
  const std::string_view bytes = snapshot.file->Bytes();
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
  header.Get(&snapshot.origin.space_created_at);
  header.Get(&snapshot.origin.removed);
  if (version != kVersion) {
    return FailedPrecondition("vindex: read flat snapshot: " + path + ": version " +
                              std::to_string(version) + ", not " + std::to_string(kVersion));
  }
  if (file_dimension != dimension) {
    return Bad(path, "holds " + std::to_string(file_dimension) + "-d vectors, not " +
                         std::to_string(dimension) + "-d");
  }
  const uint64_t size = bytes.size();
  const uint64_t row_bytes = dimension * sizeof(float);
  if (row_bytes == 0 || stamp_bytes > size || rows > size / (2 * sizeof(int64_t) + row_bytes) ||
      VectorsAt(stamp_bytes, rows) + rows * row_bytes + sizeof(uint64_t) != size) {
    return Bad(path, "its size does not match its header");
  }
  const std::string_view body = bytes.substr(0, size - sizeof(uint64_t));
  uint64_t stored = 0;
  std::memcpy(&stored, bytes.data() + body.size(), sizeof(stored));
  // Checked whole once; then while the file is as it was checked, its
  // stamp says so (src/common/verified_stamp.h).
  if (!ChecksumVerified(path, snapshot.file->FileStamp(), stored,
                        [&] { return ChecksumOf(body); })) {
    return Bad(path, "checksum mismatch");
  }

  snapshot.stamp.assign(bytes.data() + kHeaderBytes, stamp_bytes);
  snapshot.rows = rows;
  // Every offset is aligned (8, 8 and 64) in a page-aligned mapping.
  snapshot.labels = reinterpret_cast<const int64_t*>(bytes.data() + LabelsAt(stamp_bytes));
  snapshot.fact_rowids =
      reinterpret_cast<const int64_t*>(bytes.data() + FactsAt(stamp_bytes, rows));
  snapshot.vectors = reinterpret_cast<const float*>(bytes.data() + VectorsAt(stamp_bytes, rows));
  for (size_t i = 1; i < rows; ++i) {
    if (snapshot.labels[i - 1] >= snapshot.labels[i]) {
      return Bad(path, "labels out of order at row " + std::to_string(i));
    }
  }
  return snapshot;
}

}  // namespace engram
