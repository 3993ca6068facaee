#include "src/embed/use_lite_model_file.h"

#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <span>
#include <string_view>
#include <utility>

#include "src/common/hash.h"
#include "src/common/verified_stamp.h"

static_assert(std::endian::native == std::endian::little,
              "the USE-Lite model file is read and written as little-endian memory");

namespace engram {
namespace {

constexpr size_t kMagicSize = 8;
constexpr size_t kTrailerSize = sizeof(uint64_t);
constexpr uint32_t kMaxRank = 4;
// Tensor values start at file offsets that are multiples of this: a cache
// line, and enough for any SIMD load.
constexpr size_t kValueAlignment = 64;

template <typename T>
void Put(T value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

void PutString(std::string_view text, std::string* out) {
  Put(static_cast<uint32_t>(text.size()), out);
  out->append(text);
}

// Zero bytes up to the next multiple of `alignment`, then `values`.
template <typename T>
void PutAligned(size_t alignment, std::span<const T> values, std::string* out) {
  out->append((alignment - (out->size() % alignment)) % alignment, '\0');
  out->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}

// The tokenizer's tables' arrays start at file offsets that are multiples
// of this, which suits each of their types.
constexpr size_t kTableAlignment = 8;

// Reads fields from a byte range, failing once it runs out.
class Reader {
 public:
  // Reads `bytes` from offset `pos`.
  Reader(std::string_view bytes, size_t pos) : bytes_(bytes), pos_(pos) {}

  template <typename T>
  bool Get(T* value) {
    if (bytes_.size() - pos_ < sizeof(T)) return false;
    std::memcpy(value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return true;
  }

  // A string, copied into `text` unless it is null.
  bool GetString(std::string* text) {
    uint32_t size = 0;
    if (!Get(&size) || bytes_.size() - pos_ < size) return false;
    if (text != nullptr) text->assign(bytes_.data() + pos_, size);
    pos_ += size;
    return true;
  }

  // Skips the zero padding up to the next multiple of `alignment` (counted
  // from the start of `bytes`, which is the start of the file), then views
  // `count` values there. `bytes` must be kValueAlignment-aligned in
  // memory, and `alignment` a multiple of T's.
  template <typename T>
  bool GetAligned(size_t alignment, size_t count, std::span<const T>* values) {
    const size_t start = (pos_ + alignment - 1) / alignment * alignment;
    if (start > bytes_.size()) return false;
    for (size_t i = pos_; i < start; ++i) {
      if (bytes_[i] != 0) return false;
    }
    if ((bytes_.size() - start) / sizeof(T) < count) return false;
    // The address is aligned (the caller checked the start of `bytes`), so
    // the view is of properly aligned values.
    *values = std::span<const T>(reinterpret_cast<const T*>(bytes_.data() + start), count);
    pos_ = start + count * sizeof(T);
    return true;
  }

  bool AtEnd() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_;
};

Status Malformed(const std::string& path, const std::string& cause) {
  return Corruption("embed: model file " + path + ": " + cause);
}

// Views the tokenizer's tables (see the format) in `reader`'s bytes.
Status ReadTokenizerTables(const std::string& path, uint32_t piece_count, Reader* reader,
                           UseLiteTokenizer::Tables* tables) {
  std::span<const uint32_t> counts;  // node_count, edge_slots
  if (!reader->GetAligned(kTableAlignment, 2, &counts) ||
      !reader->GetAligned(kTableAlignment, piece_count, &tables->piece_utf16_length) ||
      !reader->GetAligned(kTableAlignment, counts[0], &tables->node_piece) ||
      !reader->GetAligned(kTableAlignment, counts[0], &tables->node_score) ||
      !reader->GetAligned(kTableAlignment, 256, &tables->root_children) ||
      !reader->GetAligned(kTableAlignment, counts[1], &tables->edge_table)) {
    return Malformed(path, "the tokenizer's tables run past the end");
  }
  return Status::OK();
}

// Whether `tables` are those FromPieces builds from `pieces`.
Status CheckTokenizerTables(const std::string& path,
                            const std::vector<UseLiteTokenizer::Piece>& pieces,
                            const UseLiteTokenizer::Tables& tables) {
  auto built = UseLiteTokenizer::FromPieces(pieces);
  if (!built.ok()) return Malformed(path, built.status().message());
  const UseLiteTokenizer::Tables& want = (*built)->GetTables();
  const auto same = [](auto a, auto b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size_bytes()) == 0;
  };
  if (!same(tables.piece_utf16_length, want.piece_utf16_length) ||
      !same(tables.node_piece, want.node_piece) || !same(tables.node_score, want.node_score) ||
      !same(tables.root_children, want.root_children) ||
      !same(tables.edge_table, want.edge_table)) {
    return Malformed(path, "the tokenizer's tables are not those of its vocabulary");
  }
  return Status::OK();
}

}  // namespace

Status WriteUseLiteModelFile(const UseLiteModelData& model, const std::string& path) {
  std::string out;
  out.append(kUseLiteModelMagic, kMagicSize);
  Put(kUseLiteModelVersion, &out);
  Put(model.max_tokens, &out);
  Put(model.output_dim, &out);
  Put(static_cast<uint32_t>(model.pieces.size()), &out);
  Put(static_cast<uint32_t>(model.tensors.size()), &out);
  for (const UseLiteTokenizer::Piece& piece : model.pieces) {
    PutString(piece.text, &out);
    Put(piece.score, &out);
  }
  const UseLiteTokenizer::Tables& tables = model.tokenizer;
  if (tables.piece_utf16_length.size() != model.pieces.size()) {
    return InvalidArgument("embed: write model file: the tokenizer's tables are of " +
                           std::to_string(tables.piece_utf16_length.size()) + " pieces, not " +
                           std::to_string(model.pieces.size()));
  }
  out.append((kTableAlignment - (out.size() % kTableAlignment)) % kTableAlignment, '\0');
  Put(static_cast<uint32_t>(tables.node_piece.size()), &out);
  Put(static_cast<uint32_t>(tables.edge_table.size()), &out);
  PutAligned(kTableAlignment, tables.piece_utf16_length, &out);
  PutAligned(kTableAlignment, tables.node_piece, &out);
  PutAligned(kTableAlignment, tables.node_score, &out);
  PutAligned(kTableAlignment, tables.root_children, &out);
  PutAligned(kTableAlignment, tables.edge_table, &out);
  for (const auto& [name, tensor] : model.tensors) {
    size_t count = 1;
    for (const uint32_t dim : tensor.shape) count *= dim;
    if (tensor.shape.size() > kMaxRank || count != tensor.values.size()) {
      return InvalidArgument("embed: write model file: tensor " + name + " has " +
                             std::to_string(tensor.values.size()) +
                             " values, not what its shape says");
    }
    PutString(name, &out);
    Put(static_cast<uint32_t>(tensor.shape.size()), &out);
    for (const uint32_t dim : tensor.shape) Put(dim, &out);
    out.append((kValueAlignment - (out.size() % kValueAlignment)) % kValueAlignment, '\0');
    out.append(reinterpret_cast<const char*>(tensor.values.data()),
               tensor.values.size() * sizeof(float));
  }
  Put(FastChecksum64(out), &out);

  const std::string temp_path = path + ".tmp";
  {
    std::ofstream file(temp_path, std::ios::binary | std::ios::trunc);
    if (!file) return IOError("embed: write model file: cannot create " + temp_path);
    file.write(out.data(), static_cast<std::streamsize>(out.size()));
    file.flush();
    if (!file) return IOError("embed: write model file: cannot write " + temp_path);
  }
  if (std::rename(temp_path.c_str(), path.c_str()) != 0) {
    const std::string cause = std::strerror(errno);
    std::remove(temp_path.c_str());
    return IOError("embed: write model file: cannot rename to " + path + ": " + cause);
  }
  return Status::OK();
}

Result<UseLiteModelData> ReadUseLiteModelFile(const std::string& path,
                                              const UseLiteModelReadOptions& options) {
  auto read = options.map ? FileContents::Map(path) : FileContents::Read(path);
  if (!read.ok()) {
    if (read.status().code() == StatusCode::kNotFound) {
      return NotFound("embed: model file " + path + ": cannot open");
    }
    return IOError("embed: " + read.status().message());
  }
  std::shared_ptr<const FileContents> storage = std::move(*read);
  const std::string_view bytes = storage->Bytes();

  if (bytes.size() < kMagicSize + kTrailerSize ||
      std::memcmp(bytes.data(), kUseLiteModelMagic, kMagicSize) != 0) {
    return Malformed(path, "not a USE-Lite model file (bad magic)");
  }
  const std::string_view body(bytes.data(), bytes.size() - kTrailerSize);
  uint64_t stored_sum = 0;
  std::memcpy(&stored_sum, bytes.data() + body.size(), kTrailerSize);
  if (!ChecksumVerified(
          path, storage->FileStamp(), stored_sum, [&] { return FastChecksum64(body); },
          options.full_check)) {
    return Malformed(path, "checksum mismatch (truncated or corrupted; convert it again)");
  }

  Reader reader(body, kMagicSize);
  UseLiteModelData model;
  uint32_t version = 0;
  uint32_t piece_count = 0;
  uint32_t tensor_count = 0;
  if (!reader.Get(&version)) return Malformed(path, "short header");
  if (version != kUseLiteModelVersion) {
    return NotSupported("embed: model file " + path + ": version " + std::to_string(version) +
                        ", this build reads version " + std::to_string(kUseLiteModelVersion) +
                        "; convert it again (make build)");
  }
  if (!reader.Get(&model.max_tokens) || !reader.Get(&model.output_dim) ||
      !reader.Get(&piece_count) || !reader.Get(&tensor_count)) {
    return Malformed(path, "short header");
  }
  // Each entry takes at least 12 bytes, which bounds a corrupt count.
  if (piece_count > body.size() / 12 || tensor_count > body.size() / 8) {
    return Malformed(path, "entry counts larger than the file");
  }
  // The vocabulary is skipped but for a full check: the tables are what a
  // tokenizer needs.
  if (options.full_check) model.pieces.resize(piece_count);
  for (uint32_t i = 0; i < piece_count; ++i) {
    double score = 0.0;
    UseLiteTokenizer::Piece* piece = options.full_check ? &model.pieces[i] : nullptr;
    if (!reader.GetString(piece != nullptr ? &piece->text : nullptr) || !reader.Get(&score)) {
      return Malformed(path, "vocabulary entry " + std::to_string(i) + " runs past the end");
    }
    if (piece != nullptr) piece->score = score;
  }
  ENGRAM_RETURN_IF_ERROR(ReadTokenizerTables(path, piece_count, &reader, &model.tokenizer));
  if (options.full_check) {
    ENGRAM_RETURN_IF_ERROR(CheckTokenizerTables(path, model.pieces, model.tokenizer));
  }
  for (uint32_t i = 0; i < tensor_count; ++i) {
    std::string name;
    uint32_t rank = 0;
    if (!reader.GetString(&name) || !reader.Get(&rank)) {
      return Malformed(path, "tensor " + std::to_string(i) + " runs past the end");
    }
    if (rank > kMaxRank) return Malformed(path, "tensor " + name + ": rank above 4");
    UseLiteTensor tensor;
    tensor.shape.resize(rank);
    size_t count = 1;
    for (uint32_t& dim : tensor.shape) {
      if (!reader.Get(&dim)) return Malformed(path, "tensor " + name + ": short shape");
      if (dim != 0 && count > std::numeric_limits<uint32_t>::max() / dim) {
        return Malformed(path, "tensor " + name + ": shape too large");
      }
      count *= dim;
    }
    if (!reader.GetAligned(kValueAlignment, count, &tensor.values)) {
      return Malformed(path, "tensor " + name + ": values misaligned or past the end");
    }
    if (!model.tensors.emplace(std::move(name), std::move(tensor)).second) {
      return Malformed(path, "tensor " + std::to_string(i) + ": duplicate name");
    }
  }
  if (!reader.AtEnd()) return Malformed(path, "bytes left after the last tensor");
  model.storage = std::move(storage);
  return model;
}

}  // namespace engram
