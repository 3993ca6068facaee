// HnswIndex::Save and HnswIndex::Load (see hnsw_index.h for the files).
//
// The meta file, host byte order:
//   magic "ENGRHNSW", u32 version (1), u32 zero,
//   u64 dimension, m, live vectors, slots, graph bytes, graph checksum,
//   u64 stamp size, the stamp, slots x i64 slot labels,
//   u64 checksum of everything before it.
// The graph file is hnswlib's (HnswGraph::Save).
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <utility>

#include "src/common/private_files.h"
#include "src/vindex/hnsw_graph.h"
#include "src/vindex/hnsw_index.h"
#include "src/vindex/index_file.h"

namespace engram {
namespace {

constexpr char kMetaMagic[8] = {'E', 'N', 'G', 'R', 'H', 'N', 'S', 'W'};
constexpr uint32_t kMetaVersion = 1;

struct Meta {
  uint64_t dimension = 0;
  uint64_t m = 0;
  uint64_t live = 0;
  uint64_t slots = 0;
  uint64_t graph_bytes = 0;
  uint64_t graph_checksum = 0;
  std::string stamp;
  std::vector<int64_t> slot_labels;
};

Status Bad(const std::string& path, const std::string& cause) {
  return Corruption("vindex: load hnsw: " + path + ": " + cause);
}

std::string EncodeMeta(const Meta& meta) {
  std::string out(kMetaMagic, sizeof(kMetaMagic));
  PutValue(kMetaVersion, &out);
  PutValue(uint32_t{0}, &out);
  for (const uint64_t field : {meta.dimension, meta.m, meta.live, meta.slots, meta.graph_bytes,
                               meta.graph_checksum, static_cast<uint64_t>(meta.stamp.size())}) {
    PutValue(field, &out);
  }
  out += meta.stamp;
  for (const int64_t label : meta.slot_labels) PutValue(label, &out);
  PutValue(ChecksumOf(out), &out);
  return out;
}

Result<Meta> DecodeMeta(std::string_view bytes, const std::string& path) {
  if (bytes.size() < sizeof(kMetaMagic) + sizeof(uint64_t) ||
      std::memcmp(bytes.data(), kMetaMagic, sizeof(kMetaMagic)) != 0) {
    return Bad(path, "not an HNSW meta file (bad magic)");
  }
  uint64_t stored_checksum = 0;
  std::memcpy(&stored_checksum, bytes.data() + bytes.size() - sizeof(uint64_t), sizeof(uint64_t));
  const std::string_view body = bytes.substr(0, bytes.size() - sizeof(uint64_t));
  if (stored_checksum != ChecksumOf(body)) {
    return Bad(path, "checksum mismatch (truncated or corrupted)");
  }
  ByteReader reader(body.substr(sizeof(kMetaMagic)));
  uint32_t version = 0;
  uint32_t zero = 0;
  Meta meta;
  uint64_t stamp_bytes = 0;
  if (!reader.Get(&version) || !reader.Get(&zero)) return Bad(path, "truncated header");
  if (version != kMetaVersion) {
    return Bad(path,
               "version " + std::to_string(version) + ", want " + std::to_string(kMetaVersion));
  }
  if (!reader.Get(&meta.dimension) || !reader.Get(&meta.m) || !reader.Get(&meta.live) ||
      !reader.Get(&meta.slots) || !reader.Get(&meta.graph_bytes) ||
      !reader.Get(&meta.graph_checksum) || !reader.Get(&stamp_bytes) ||
      !reader.GetBytes(stamp_bytes, &meta.stamp)) {
    return Bad(path, "truncated header");
  }
  if (meta.live > meta.slots || meta.slots > HnswGraph::kMaxNodes ||
      reader.Remaining() != meta.slots * sizeof(int64_t)) {
    return Bad(path, "slot table does not match its counts");
  }
  meta.slot_labels.resize(meta.slots);
  for (int64_t& label : meta.slot_labels) reader.Get(&label);
  return meta;
}

// Counts one pending save of an index for as long as it lives.
class PendingMark {
 public:
  explicit PendingMark(std::shared_ptr<std::atomic<int>> count) : count_(std::move(count)) {
    count_->fetch_add(1, std::memory_order_acq_rel);
  }
  ~PendingMark() { count_->fetch_sub(1, std::memory_order_acq_rel); }
  PendingMark(const PendingMark&) = delete;
  PendingMark& operator=(const PendingMark&) = delete;

 private:
  std::shared_ptr<std::atomic<int>> count_;
};

}  // namespace

struct HnswIndex::PendingSave::State {
  PendingMark pending;  // first: the save is pending from before its point is marked
  std::string path;
  Meta meta;  // all but the graph's size and checksum, known once written
  HnswGraph::SavePoint point;
  std::unique_ptr<PrivateFileWriter> graph;  // once written
};

HnswIndex::PendingSave::PendingSave(std::unique_ptr<State> state) : state_(std::move(state)) {}
HnswIndex::PendingSave::PendingSave(PendingSave&&) noexcept = default;
HnswIndex::PendingSave& HnswIndex::PendingSave::operator=(PendingSave&&) noexcept = default;
HnswIndex::PendingSave::~PendingSave() = default;

Status HnswIndex::PendingSave::WriteGraph(const Hold& hold) {
  State& s = *state_;
  Result<PrivateFileWriter> opened = PrivateFileWriter::Open(s.path);
  if (!opened.ok()) return IOError("vindex: save hnsw: " + opened.status().message());
  auto graph = std::make_unique<PrivateFileWriter>(std::move(*opened));
  // The checksum and size of what is written, as Load digests the file.
  Checksum checksum;
  uint64_t graph_bytes = 0;
  const HnswGraph::Hold hold_graph = [&](const HnswGraph::Use& use) {
    return hold([&](const HnswIndex& index) { return use(*index.graph_); });
  };
  ENGRAM_RETURN_IF_ERROR(
      HnswGraph::WriteFile(s.point, hold_graph, [&](std::string_view piece) -> Status {
        checksum.Update(piece);
        graph_bytes += piece.size();
        if (Status wrote = graph->Append(piece); !wrote.ok()) {
          return IOError("vindex: save hnsw: " + wrote.message());
        }
        return Status::OK();
      }));
  s.meta.graph_bytes = graph_bytes;
  s.meta.graph_checksum = checksum.Digest();
  s.graph = std::move(graph);
  return Status::OK();
}

Status HnswIndex::PendingSave::Commit() {
  State& s = *state_;
  const std::string meta_path = MetaPath(s.path);
  if (!s.graph) {
    return FailedPrecondition("vindex: save hnsw: " + s.path + ": not written, or committed");
  }
  const std::unique_ptr<PrivateFileWriter> graph = std::move(s.graph);
  // Drop the old meta file first: between the two renames the pair reads as
  // missing, not as a mismatch.
  if (std::remove(meta_path.c_str()) != 0 && errno != ENOENT) {
    return IOError("vindex: save hnsw: cannot remove " + meta_path + ": " + std::strerror(errno));
  }
  if (Status placed = graph->Commit(); !placed.ok()) {
    return IOError("vindex: save hnsw: " + placed.message());
  }
  return WriteFileAtomically(meta_path, EncodeMeta(s.meta));
}

Result<HnswIndex::PendingSave> HnswIndex::StartSave(const std::string& path,
                                                    const std::string& stamp) const {
  if (slot_label_.size() != graph_->Nodes()) {
    return FailedPrecondition(
        "vindex: save hnsw: the graph has " + std::to_string(graph_->Nodes()) + " nodes for " +
        std::to_string(slot_label_.size()) + " slots (a batch failed); rebuild the index");
  }
  std::unique_ptr<PendingSave::State> state(new PendingSave::State{
      PendingMark(pending_saves_), path, Meta{}, graph_->MarkSavePoint(), nullptr});
  Meta& meta = state->meta;
  meta.dimension = dimension_;
  meta.m = graph_->M();
  meta.live = slot_of_.size();
  meta.slots = slot_label_.size();
  meta.stamp = stamp;
  meta.slot_labels = slot_label_;
  return PendingSave(std::move(state));
}

Status HnswIndex::Save(const std::string& path, const std::string& stamp) const {
  ENGRAM_ASSIGN_OR_RETURN(PendingSave save, StartSave(path, stamp));
  ENGRAM_RETURN_IF_ERROR(save.WriteGraph([this](const Use& use) { return use(*this); }));
  return save.Commit();
}

Result<std::unique_ptr<HnswIndex>> HnswIndex::Load(const std::string& path, size_t dimension,
                                                   const HnswIndexOptions& options,
                                                   std::string* stamp) {
  const std::string meta_path = MetaPath(path);
  ENGRAM_ASSIGN_OR_RETURN(const std::string meta_bytes, ReadFileBytes(meta_path));
  ENGRAM_ASSIGN_OR_RETURN(const Meta meta, DecodeMeta(meta_bytes, meta_path));
  if (meta.dimension != dimension) {
    return Bad(meta_path, "dimension " + std::to_string(meta.dimension) + ", want " +
                              std::to_string(dimension));
  }
  ENGRAM_ASSIGN_OR_RETURN(const uint64_t graph_bytes, FileBytes(path));
  if (graph_bytes != meta.graph_bytes) {
    return Bad(path, std::to_string(graph_bytes) + " bytes, the meta file says " +
                         std::to_string(meta.graph_bytes) + " (truncated or stale)");
  }
  // The layout first (cheap, and it names what is wrong), then every byte.
  ENGRAM_RETURN_IF_ERROR(CheckGraphFile(path, graph_bytes, dimension, meta.m, meta.slots));
  ENGRAM_ASSIGN_OR_RETURN(const FileDigest digest, DigestFile(path));
  if (digest.bytes != meta.graph_bytes || digest.checksum != meta.graph_checksum) {
    return Bad(path, "checksum mismatch (corrupted or stale)");
  }
  // Room to grow by an eighth without reallocating the graph: growing
  // copies all of it (about 150 ms at 200,000 vectors of 512 dimensions)
  // while searches wait, so a loaded graph pays for that room up front.
  const size_t capacity =
      meta.slots + std::max<size_t>(options.initial_capacity, meta.slots / kLoadHeadroomShare);
  ENGRAM_ASSIGN_OR_RETURN(auto graph,
                          HnswGraph::Load(path, dimension, capacity, options.random_seed));
  ENGRAM_RETURN_IF_ERROR(graph->Validate(path));

  HnswIndexOptions kept = options;
  kept.m = graph->M();
  kept.ef_construction = graph->EfConstruction();
  std::unique_ptr<HnswIndex> index(new HnswIndex(dimension, kept, std::move(graph)));
  index->slot_label_ = meta.slot_labels;
  for (size_t slot = 0; slot < meta.slots; ++slot) {
    if (index->graph_->IsDeleted(slot)) continue;
    if (!index->slot_of_.try_emplace(meta.slot_labels[slot], static_cast<uint32_t>(slot)).second) {
      return Bad(meta_path, "label " + std::to_string(meta.slot_labels[slot]) + " is live twice");
    }
  }
  if (index->slot_of_.size() != meta.live) {
    return Bad(meta_path, std::to_string(index->slot_of_.size()) + " live vectors, want " +
                              std::to_string(meta.live));
  }
  if (stamp != nullptr) *stamp = meta.stamp;
  return index;
}

}  // namespace engram
