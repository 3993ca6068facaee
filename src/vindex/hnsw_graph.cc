#include "src/vindex/hnsw_graph.h"

// hnswlib's headers define non-inline functions and variables (cpuid,
// AVXCapable, its SIMD function pointers). They get engram-private names
// here, so that a program linking this library may include hnswlib itself
// (bench/vector_search.cc does). Within this file `hnswlib` names the
// renamed namespace.
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <x86intrin.h>
#endif
#define hnswlib engram_hnswlib
#define cpuid EngramHnswlibCpuid
#define xgetbv EngramHnswlibXgetbv
#define AVXCapable EngramHnswlibAvxCapable
#define AVX512Capable EngramHnswlibAvx512Capable
// hnswlib's prefetch hints read one entry past a full neighbour list, past
// the end of its allocation for a node's top layer: harmless, but
// AddressSanitizer stops on it. Sanitized builds go without the hints.
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>
#undef cpuid
#undef xgetbv
#undef AVXCapable
#undef AVX512Capable

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <fstream>
#include <functional>
#include <mutex>
#include <new>
#include <queue>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/vindex/index_file.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

static_assert(sizeof(size_t) == 8 && sizeof(hnswlib::labeltype) == 8,
              "the hnswlib file layout is read as 64-bit");

using Hnsw = hnswlib::HierarchicalNSW<float>;

constexpr size_t kGraphHeaderBytes = 96;
// Largest piece Write hands its sink.
constexpr size_t kWritePieceBytes = size_t{1} << 20;
// Far above any real graph (levels grow as log n / log m).
constexpr int kMaxLevel = 64;
constexpr size_t kMaxM = 1024;

// Inner-product space whose distance is -Dot(a, b): the order of hnswlib's
// InnerProductSpace (1 - dot), with the score recoverable exactly. It calls
// Dot's kernel directly, skipping one indirection per distance.
class DotSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit DotSpace(size_t dimension) : param_{dimension, DotKernel()} {}

  size_t get_data_size() override { return param_.dimension * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &NegativeDot; }
  void* get_dist_func_param() override { return &param_; }

 private:
  // hnswlib reads a size_t dimension at the start of the parameter.
  struct Param {
    size_t dimension;
    DotFunction dot;
  };

  static float NegativeDot(const void* a, const void* b, const void* param) {
    const auto* p = static_cast<const Param*>(param);
    return -p->dot(static_cast<const float*>(a), static_cast<const float*>(b), p->dimension);
  }

  Param param_;
};

// Runs hnswlib code, which throws, and turns an exception into an Internal
// status: "vindex: hnsw <what>: <cause>".
template <typename Call>
Status Guard(std::string_view what, Call&& call) {
  try {
    call();
    return Status::OK();
  } catch (const std::bad_alloc&) {
    return Internal("vindex: hnsw " + std::string(what) + ": out of memory");
  } catch (const std::exception& e) {
    return Internal("vindex: hnsw " + std::string(what) + ": " + e.what());
  }
}

Status Bad(const std::string& path, const std::string& cause) {
  return Corruption("vindex: load hnsw: " + path + ": " + cause);
}

// The candidate heap of hnswlib's bottom-layer search: (distance, node)
// pairs, farthest on top.
using Candidates =
    std::priority_queue<std::pair<float, hnswlib::tableint>,
                        std::vector<std::pair<float, hnswlib::tableint>>, Hnsw::CompareByFirst>;

// Reads a priority queue's container without popping it.
struct CandidateAccess : Candidates {
  static const std::vector<std::pair<float, hnswlib::tableint>>& Of(const Candidates& queue) {
    return queue.*&CandidateAccess::c;
  }
};

bool LinksInRange(const hnswlib::linklistsizeint* list, size_t max_links, size_t count) {
  const size_t links = *reinterpret_cast<const uint16_t*>(list);
  if (links > max_links) return false;
  const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
  for (size_t j = 0; j < links; ++j) {
    if (ids[j] >= count) return false;
  }
  return true;
}

}  // namespace

// The space must outlive the graph, which keeps pointers into it.
struct HnswGraph::Impl {
  explicit Impl(size_t dimension) : space(dimension) {}

  DotSpace space;
  std::unique_ptr<Hnsw> hnsw;
  // 1 for each node (by hnswlib's internal id) marked deleted; ids past
  // the end are not. What a save point copies, rather than read every
  // node's mark out of the graph.
  std::vector<uint8_t> deleted;
};

HnswGraph::HnswGraph(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HnswGraph::~HnswGraph() = default;

Result<std::unique_ptr<HnswGraph>> HnswGraph::Create(size_t dimension, size_t capacity, size_t m,
                                                     size_t ef_construction, uint64_t seed) {
  auto impl = std::make_unique<Impl>(dimension);
  capacity = std::clamp<size_t>(capacity, 1, kMaxNodes);
  ENGRAM_RETURN_IF_ERROR(Guard("create", [&] {
    impl->hnsw = std::make_unique<Hnsw>(&impl->space, capacity, m, ef_construction, seed);
  }));
  return std::unique_ptr<HnswGraph>(new HnswGraph(std::move(impl)));
}

Result<std::unique_ptr<HnswGraph>> HnswGraph::Load(const std::string& path, size_t dimension,
                                                   size_t capacity, uint64_t seed) {
  auto impl = std::make_unique<Impl>(dimension);
  impl->hnsw = std::make_unique<Hnsw>(&impl->space);
  Hnsw& hnsw = *impl->hnsw;
  // hnswlib's loading path leaves these unset.
  hnsw.num_deleted_ = 0;
  hnsw.cur_element_count = 0;
  hnsw.data_level0_memory_ = nullptr;
  hnsw.linkLists_ = nullptr;
  hnsw.visited_list_pool_ = nullptr;
  const Status loaded = Guard("load", [&] {
    hnsw.loadIndex(path, &impl->space, std::clamp<size_t>(capacity, 1, kMaxNodes));
  });
  if (!loaded.ok()) {
    // A half-loaded hnswlib graph cannot be destroyed safely; this only
    // happens when memory runs out or the file changed after it was checked.
    [[maybe_unused]] Hnsw* leaked = impl->hnsw.release();
    return Bad(path, loaded.message());
  }
  hnsw.level_generator_.seed(seed);
  impl->deleted.assign(hnsw.cur_element_count, 0);
  for (size_t i = 0; i < hnsw.cur_element_count; ++i) {
    impl->deleted[i] = hnsw.isMarkedDeleted(static_cast<hnswlib::tableint>(i)) ? 1 : 0;
  }
  return std::unique_ptr<HnswGraph>(new HnswGraph(std::move(impl)));
}

size_t HnswGraph::Nodes() const { return impl_->hnsw->cur_element_count; }
size_t HnswGraph::Capacity() const { return impl_->hnsw->max_elements_; }
size_t HnswGraph::M() const { return impl_->hnsw->M_; }
size_t HnswGraph::EfConstruction() const { return impl_->hnsw->ef_construction_; }

Status HnswGraph::Reserve(size_t nodes) {
  Hnsw& hnsw = *impl_->hnsw;
  if (nodes > kMaxNodes) {
    return FailedPrecondition("vindex: hnsw: " + std::to_string(nodes) +
                              " nodes are more than a graph holds; rebuild it without the "
                              "deleted ones");
  }
  if (nodes <= hnsw.max_elements_) return Status::OK();
  const size_t capacity = std::min(kMaxNodes, std::max(nodes, 2 * hnsw.max_elements_));
  return Guard("grow", [&] { hnsw.resizeIndex(capacity); });
}

Status HnswGraph::Add(const float* vector, size_t slot) {
  return Guard("add", [&] { impl_->hnsw->addPoint(vector, slot); });
}

void HnswGraph::MarkDeleted(size_t slot) {
  const auto found = impl_->hnsw->label_lookup_.find(slot);
  if (found == impl_->hnsw->label_lookup_.end()) return;
  // Throws only for an already deleted slot, which callers rule out.
  Guard("remove", [&] { impl_->hnsw->markDelete(slot); }).IgnoreError();
  std::vector<uint8_t>& deleted = impl_->deleted;
  if (found->second >= deleted.size()) deleted.resize(found->second + 1, 0);
  deleted[found->second] = 1;
}

bool HnswGraph::IsDeleted(size_t slot) const {
  const Hnsw& hnsw = *impl_->hnsw;
  const auto found = hnsw.label_lookup_.find(slot);
  return found == hnsw.label_lookup_.end() || hnsw.isMarkedDeleted(found->second);
}

bool HnswGraph::Has(size_t slot) const { return impl_->hnsw->label_lookup_.count(slot) != 0; }

const float* HnswGraph::Vector(size_t slot) const {
  const Hnsw& hnsw = *impl_->hnsw;
  const auto found = hnsw.label_lookup_.find(slot);
  if (found == hnsw.label_lookup_.end()) return nullptr;
  return reinterpret_cast<const float*>(hnsw.getDataByInternalId(found->second));
}

Status HnswGraph::Search(const float* query, size_t ef, std::vector<GraphHit>* hits) const {
  // hnswlib's searchKnn up to its result heap, which is skipped, as are its
  // shared atomic counters.
  const Hnsw& hnsw = *impl_->hnsw;
  hits->clear();
  if (hnsw.cur_element_count == 0) return Status::OK();
  Candidates found;
  ENGRAM_RETURN_IF_ERROR(Guard("search", [&] {
    hnswlib::tableint current = hnsw.enterpoint_node_;
    float current_distance =
        hnsw.fstdistfunc_(query, hnsw.getDataByInternalId(current), hnsw.dist_func_param_);
    for (int level = hnsw.maxlevel_; level > 0; --level) {
      for (bool changed = true; changed;) {
        changed = false;
        hnswlib::linklistsizeint* list = hnsw.get_linklist(current, level);
        const size_t links = hnsw.getListCount(list);
        const auto* neighbours = reinterpret_cast<const hnswlib::tableint*>(list + 1);
        for (size_t i = 0; i < links; ++i) {
          const float distance = hnsw.fstdistfunc_(query, hnsw.getDataByInternalId(neighbours[i]),
                                                   hnsw.dist_func_param_);
          if (distance < current_distance) {
            current_distance = distance;
            current = neighbours[i];
            changed = true;
          }
        }
      }
    }
    found = hnsw.num_deleted_ > 0 ? hnsw.searchBaseLayerST<true, false>(current, query, ef)
                                  : hnsw.searchBaseLayerST<false, false>(current, query, ef);
  }));
  hits->reserve(found.size());
  for (const auto& [distance, node] : CandidateAccess::Of(found)) {
    // The distance is -Dot(query, vector): negating it is exact.
    hits->push_back({hnsw.getExternalLabel(node), -distance});
  }
  return Status::OK();
}

struct HnswGraph::SavePoint::Data {
  std::string header;  // saveIndex's fields, kGraphHeaderBytes
  size_t nodes = 0;
  size_t node_bytes = 0;         // a node's block in the bottom layer
  std::vector<uint8_t> deleted;  // nodes entries
};

HnswGraph::SavePoint::SavePoint(std::unique_ptr<Data> data) : data_(std::move(data)) {}
HnswGraph::SavePoint::SavePoint(SavePoint&&) noexcept = default;
HnswGraph::SavePoint& HnswGraph::SavePoint::operator=(SavePoint&&) noexcept = default;
HnswGraph::SavePoint::~SavePoint() = default;

HnswGraph::SavePoint HnswGraph::MarkSavePoint() const {
  const Hnsw& hnsw = *impl_->hnsw;
  auto data = std::make_unique<SavePoint::Data>();
  // saveIndex's fields, in its order and with its types.
  std::string& header = data->header;
  PutValue(hnsw.offsetLevel0_, &header);
  PutValue(hnsw.max_elements_, &header);
  PutValue(hnsw.cur_element_count, &header);
  PutValue(hnsw.size_data_per_element_, &header);
  PutValue(hnsw.label_offset_, &header);
  PutValue(hnsw.offsetData_, &header);
  PutValue(hnsw.maxlevel_, &header);
  PutValue(hnsw.enterpoint_node_, &header);
  PutValue(hnsw.maxM_, &header);
  PutValue(hnsw.maxM0_, &header);
  PutValue(hnsw.M_, &header);
  PutValue(hnsw.mult_, &header);
  PutValue(hnsw.ef_construction_, &header);
  static_assert(kGraphHeaderBytes == 96);
  data->nodes = hnsw.cur_element_count;
  data->node_bytes = hnsw.size_data_per_element_;
  const std::vector<uint8_t>& deleted = impl_->deleted;
  data->deleted.assign(deleted.begin(), deleted.begin() + static_cast<ptrdiff_t>(std::min(
                                                              deleted.size(), data->nodes)));
  data->deleted.resize(data->nodes, 0);
  return SavePoint(std::move(data));
}

namespace {

// Appends a link list as a file at a save point of `nodes` nodes holds it:
// the links to nodes there then, in their order, the count in the list's
// first two bytes and `mark` in its third, the rest zero.
void AppendLinksBefore(const hnswlib::linklistsizeint* list, size_t max_links, size_t nodes,
                       uint8_t mark, std::string* out) {
  const size_t links = std::min<size_t>(*reinterpret_cast<const uint16_t*>(list), max_links);
  const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
  const size_t at = out->size();
  out->append(sizeof(hnswlib::linklistsizeint) + (max_links * sizeof(hnswlib::tableint)), '\0');
  char* header = out->data() + at;
  char* kept_ids = header + sizeof(hnswlib::linklistsizeint);
  uint16_t kept = 0;
  for (size_t j = 0; j < links; ++j) {
    if (ids[j] >= nodes) continue;
    std::memcpy(kept_ids + (kept * sizeof(hnswlib::tableint)), &ids[j], sizeof(hnswlib::tableint));
    ++kept;
  }
  std::memcpy(header, &kept, sizeof(kept));
  header[2] = static_cast<char>(mark);
}

}  // namespace

Status HnswGraph::CopyBottomLayer(const SavePoint& point, size_t first, size_t count,
                                  std::string* out) const {
  const Hnsw& hnsw = *impl_->hnsw;
  const SavePoint::Data& p = *point.data_;
  if (hnsw.cur_element_count < p.nodes || hnsw.size_data_per_element_ != p.node_bytes ||
      first > p.nodes || count > p.nodes - first) {
    return FailedPrecondition("vindex: hnsw save: nodes " + std::to_string(first) + " to " +
                              std::to_string(first + count) + " of " + std::to_string(p.nodes) +
                              " asked of a graph of " + std::to_string(hnsw.cur_element_count));
  }
  const size_t links_bytes = hnsw.size_links_level0_;
  const size_t data_bytes = hnsw.size_data_per_element_ - links_bytes;
  out->reserve(out->size() + (count * hnsw.size_data_per_element_));
  for (size_t i = first; i < first + count; ++i) {
    const char* block = hnsw.data_level0_memory_ + (i * hnsw.size_data_per_element_);
    AppendLinksBefore(reinterpret_cast<const hnswlib::linklistsizeint*>(block), hnsw.maxM0_,
                      p.nodes, p.deleted[i] != 0 ? Hnsw::DELETE_MARK : 0, out);
    out->append(block + links_bytes, data_bytes);  // the vector and the label
  }
  return Status::OK();
}

Result<size_t> HnswGraph::CopyUpperLayers(const SavePoint& point, size_t first,
                                          std::string* out) const {
  const Hnsw& hnsw = *impl_->hnsw;
  const SavePoint::Data& p = *point.data_;
  if (hnsw.cur_element_count < p.nodes) {
    return FailedPrecondition("vindex: hnsw save: a graph of " +
                              std::to_string(hnsw.cur_element_count) + " nodes, saved at " +
                              std::to_string(p.nodes));
  }
  size_t i = first;
  for (; i < p.nodes && out->size() < kWritePieceBytes; ++i) {
    // Each node's size in bytes, then its links on each level above the
    // bottom.
    const int levels = hnsw.element_levels_[i];
    const auto bytes =
        static_cast<uint32_t>(levels > 0 ? hnsw.size_links_per_element_ * levels : 0);
    PutValue(bytes, out);
    for (int level = 1; level <= levels; ++level) {
      AppendLinksBefore(hnsw.get_linklist(static_cast<hnswlib::tableint>(i), level), hnsw.maxM_,
                        p.nodes, 0, out);
    }
  }
  return i;
}

Status HnswGraph::WriteFile(const SavePoint& point, const Hold& hold, const Sink& sink) {
  const SavePoint::Data& p = *point.data_;
  ENGRAM_RETURN_IF_ERROR(sink(p.header));
  std::string piece;
  // The bottom layer, a piece of whole nodes at a time: each node's links,
  // vector and label.
  const size_t per_piece = std::max<size_t>(1, kWritePieceBytes / p.node_bytes);
  for (size_t first = 0; first < p.nodes; first += per_piece) {
    piece.clear();
    ENGRAM_RETURN_IF_ERROR(hold([&](const HnswGraph& graph) {
      return graph.CopyBottomLayer(point, first, std::min(per_piece, p.nodes - first), &piece);
    }));
    ENGRAM_RETURN_IF_ERROR(sink(piece));
  }
  // The upper layers, node by node.
  for (size_t first = 0; first < p.nodes;) {
    piece.clear();
    ENGRAM_RETURN_IF_ERROR(hold([&](const HnswGraph& graph) -> Status {
      ENGRAM_ASSIGN_OR_RETURN(first, graph.CopyUpperLayers(point, first, &piece));
      return Status::OK();
    }));
    ENGRAM_RETURN_IF_ERROR(sink(piece));
  }
  return Status::OK();
}

Status HnswGraph::Validate(const std::string& path) const {
  const Hnsw& hnsw = *impl_->hnsw;
  const size_t count = hnsw.cur_element_count;
  if (hnsw.label_lookup_.size() != count) return Bad(path, "a slot number repeats");
  for (size_t i = 0; i < count; ++i) {
    const auto id = static_cast<hnswlib::tableint>(i);
    if (hnsw.getExternalLabel(id) >= count) return Bad(path, "slot number out of range");
    if (!LinksInRange(hnsw.get_linklist0(id), hnsw.maxM0_, count)) {
      return Bad(path, "bad bottom-layer links of node " + std::to_string(i));
    }
    for (int level = 1; level <= hnsw.element_levels_[i]; ++level) {
      if (!LinksInRange(hnsw.get_linklist(id, level), hnsw.maxM_, count)) {
        return Bad(path, "bad links of node " + std::to_string(i));
      }
    }
  }
  if (count > 0 && hnsw.element_levels_[hnsw.enterpoint_node_] != hnsw.maxlevel_) {
    return Bad(path, "entry point is not on the top level");
  }
  return Status::OK();
}

size_t HnswGraph::MemoryBytes() const {
  const Hnsw& hnsw = *impl_->hnsw;
  // Per slot of capacity: bottom-layer links, vector and label; an upper
  // layer pointer, a level and a lock; one visited-list entry.
  size_t bytes = hnsw.max_elements_ * (hnsw.size_data_per_element_ + sizeof(void*) + sizeof(int) +
                                       sizeof(std::mutex) + sizeof(hnswlib::vl_type));
  for (size_t i = 0; i < hnsw.cur_element_count; ++i) {
    const auto level = static_cast<size_t>(hnsw.element_levels_[i]);
    if (level > 0) bytes += (hnsw.size_links_per_element_ * level) + 1;
  }
  bytes += Hnsw::max_update_element_locks * sizeof(std::mutex);
  // Label map nodes (key, value, next pointer) and buckets.
  bytes += hnsw.label_lookup_.size() * (sizeof(size_t) + sizeof(void*) + 8) +
           (hnsw.label_lookup_.bucket_count() * sizeof(void*));
  return bytes;
}

Status CheckGraphFile(const std::string& path, uint64_t file_bytes, size_t dimension, size_t m,
                      size_t slots) {
  std::ifstream in(path, std::ios::binary);
  char raw[kGraphHeaderBytes];
  if (file_bytes < kGraphHeaderBytes || !in.read(raw, sizeof(raw))) {
    return Bad(path, "shorter than its header");
  }
  // hnswlib's header fields, in file order.
  ByteReader reader(std::string_view(raw, sizeof(raw)));
  uint64_t offset_level0 = 0, max_elements = 0, count = 0, size_data_per_element = 0;
  uint64_t label_offset = 0, offset_data = 0, max_m = 0, max_m0 = 0, file_m = 0;
  uint64_t ef_construction = 0;
  int32_t max_level = 0;
  uint32_t enterpoint = 0;
  double mult = 0.0;
  const bool read = reader.Get(&offset_level0) && reader.Get(&max_elements) && reader.Get(&count) &&
                    reader.Get(&size_data_per_element) && reader.Get(&label_offset) &&
                    reader.Get(&offset_data) && reader.Get(&max_level) && reader.Get(&enterpoint) &&
                    reader.Get(&max_m) && reader.Get(&max_m0) && reader.Get(&file_m) &&
                    reader.Get(&mult) && reader.Get(&ef_construction) && reader.Remaining() == 0;
  const uint64_t links0_bytes = (max_m0 * sizeof(hnswlib::tableint)) + sizeof(uint32_t);
  const uint64_t links_bytes = (max_m * sizeof(hnswlib::tableint)) + sizeof(uint32_t);
  const bool shape_ok = read && offset_level0 == 0 && count == slots && file_m == m && m >= 2 &&
                        m <= kMaxM && max_m == m && max_m0 == 2 * m &&
                        offset_data == links0_bytes &&
                        label_offset == links0_bytes + (dimension * sizeof(float)) &&
                        size_data_per_element == label_offset + sizeof(hnswlib::labeltype) &&
                        max_elements >= count && std::isfinite(mult) && mult > 0 &&
                        ef_construction >= 1 && ef_construction <= (uint64_t{1} << 32);
  if (!shape_ok) return Bad(path, "header does not match the meta file");
  if (count == 0 ? max_level != -1
                 : (max_level < 0 || max_level > kMaxLevel || enterpoint >= count)) {
    return Bad(path, "bad entry point or level");
  }
  if (count > (file_bytes - kGraphHeaderBytes) / size_data_per_element) {
    return Bad(path, "shorter than its vectors");
  }
  // Per node: a u32 size, then that many bytes of upper-layer links.
  uint64_t offset = kGraphHeaderBytes + (count * size_data_per_element);
  in.seekg(static_cast<std::streamoff>(offset));
  for (uint64_t i = 0; i < count; ++i) {
    uint32_t size = 0;
    if (offset + sizeof(size) > file_bytes ||
        !in.read(reinterpret_cast<char*>(&size), sizeof(size))) {
      return Bad(path, "links of node " + std::to_string(i) + " cut off");
    }
    offset += sizeof(size);
    if (size % links_bytes != 0 || size / links_bytes > static_cast<uint64_t>(max_level) ||
        size > file_bytes - offset) {
      return Bad(path, "bad links of node " + std::to_string(i));
    }
    if (size > 0) {
      offset += size;
      in.seekg(static_cast<std::streamoff>(offset));
    }
  }
  if (offset != file_bytes) return Bad(path, "trailing bytes after the links");
  return Status::OK();
}

}  // namespace engram
