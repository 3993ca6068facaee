#include "src/store/store_copy.h"

#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace engram {
namespace {

// A fact's label and id in the destination, by its label in the source.
struct CopiedFact {
  int64_t label = 0;
  std::string id;
  std::string scope;
};
using LabelMap = std::unordered_map<int64_t, CopiedFact>;

// The floats of a stored vector blob of `space`; none, with why and
// `remedy` in counts->skipped, when it is not a whole number of floats,
// which no search could use either.
std::optional<std::vector<float>> FloatsOf(std::string_view blob, const char* what,
                                           const EmbeddingSpace& space, const char* remedy,
                                           StoreCopyCounts* counts) {
  if (blob.empty() || blob.size() % sizeof(float) != 0) {
    counts->skipped.push_back(std::string(what) + " of " + std::to_string(blob.size()) +
                              " bytes in space " + space.Key() +
                              ": not a whole number of floats; not copied (" + remedy + ")");
    return std::nullopt;
  }
  std::vector<float> floats(blob.size() / sizeof(float));
  std::memcpy(floats.data(), blob.data(), blob.size());
  return floats;
}

Status CopyFacts(Store& from, Store& to, const TermCounter& count, LabelMap* labels,
                 StoreCopyCounts* counts) {
  std::vector<StoredFact> facts;
  ENGRAM_RETURN_IF_ERROR(from.facts().ForEach({}, [&](const StoredFact& f) {
    facts.push_back(f);
    return true;
  }));
  for (const StoredFact& f : facts) {
    FactRow row;
    row.fact = f.fact;
    row.text = count(f.fact.content, f.fact.tags);
    ENGRAM_ASSIGN_OR_RETURN(const int64_t label, to.facts().Insert(row));
    (*labels)[f.rowid] = CopiedFact{label, f.fact.id, f.fact.scope};
    ++counts->facts;
  }
  return Status::OK();
}

Status CopyVersionLinks(Store& from, Store& to, const LabelMap& labels, StoreCopyCounts* counts) {
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<VersionLink> links, from.versions().All());
  for (const VersionLink& link : links) {
    const auto older = labels.find(link.older_rowid);
    const auto newer = labels.find(link.newer_rowid);
    if (older == labels.end() || newer == labels.end()) continue;  // a link of no fact
    ENGRAM_RETURN_IF_ERROR(to.versions().Put(
        older->second.scope,
        {older->second.label, newer->second.label, link.cosine, link.explicit_update}));
    ++counts->version_links;
  }
  return Status::OK();
}

Status CopyVectors(Store& from, Store& to, const LabelMap& labels, StoreCopyCounts* counts) {
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<SpaceInfo> spaces, from.vectors().Spaces());
  for (const SpaceInfo& info : spaces) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t space_id,
                            to.vectors().EnsureSpace(info.space, info.created_at));
    ++counts->spaces;
    // Read first, then written: the two stores may share nothing, but a
    // sink must not write while the source's statement steps.
    std::vector<std::pair<int64_t, std::vector<float>>> vectors;  // source fact label, floats
    ENGRAM_RETURN_IF_ERROR(from.vectors().ForEachBlob(
        info.id, [&](const std::string& /*scope*/, const VectorRef& ref, std::string_view blob) {
          std::optional<std::vector<float>> floats = FloatsOf(
              blob, "a vector", info.space, "`engram backfill` embeds its fact again", counts);
          if (floats) vectors.emplace_back(ref.fact_rowid, std::move(*floats));
        }));
    for (const auto& [fact_label, floats] : vectors) {
      const auto fact = labels.find(fact_label);
      if (fact == labels.end()) continue;  // a vector of no fact
      ENGRAM_ASSIGN_OR_RETURN(const bool put,
                              to.vectors().Put(space_id, fact->second.scope, fact->second.label,
                                               fact->second.id, floats));
      if (put) ++counts->vectors;
    }
  }
  return Status::OK();
}

Status CopyHypotheses(Store& from, Store& to, StoreCopyCounts* counts) {
  struct Cached {
    HypothesisKey key;
    std::string hypothesis;
    Timestamp created_at = 0;
  };
  std::vector<Cached> cached;
  ENGRAM_RETURN_IF_ERROR(from.hypotheses().ForEach(
      [&](const HypothesisKey& key, const std::string& hypothesis, Timestamp created_at) {
        cached.push_back({key, hypothesis, created_at});
      }));
  for (const Cached& c : cached) {
    ENGRAM_RETURN_IF_ERROR(to.hypotheses().Put(c.key, c.hypothesis, c.created_at));
    ++counts->hypotheses;
  }
  return Status::OK();
}

// Attachments with their files and chunks, then the chunks' vectors of
// every space (by content hash, so they need no mapping).
Status CopyAttachments(Store& from, Store& to, StoreCopyCounts* counts) {
  ChunkStore& source = from.chunks();
  ChunkStore& destination = to.chunks();
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<StoredAttachment> attachments, source.List());
  for (const StoredAttachment& a : attachments) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t id, destination.Restore(a));
    ++counts->attachments;
    ENGRAM_ASSIGN_OR_RETURN(const std::vector<StoredFile> files, source.Files(a.id));
    for (const StoredFile& f : files) ENGRAM_RETURN_IF_ERROR(destination.PutFile(id, f));
    ENGRAM_ASSIGN_OR_RETURN(const std::vector<ChunkRow> chunks, source.ChunksOf(a.id));
    // ChunksOf gives each file's chunks together.
    for (size_t begin = 0; begin < chunks.size();) {
      size_t end = begin;
      while (end < chunks.size() && chunks[end].path == chunks[begin].path) ++end;
      ENGRAM_RETURN_IF_ERROR(destination.ReplaceChunks(
          id, chunks[begin].path,
          std::vector<ChunkRow>(chunks.begin() + static_cast<std::ptrdiff_t>(begin),
                                chunks.begin() + static_cast<std::ptrdiff_t>(end))));
      counts->chunks += static_cast<int64_t>(end - begin);
      begin = end;
    }
  }
  if (attachments.empty()) return Status::OK();
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<SpaceInfo> spaces, from.vectors().Spaces());
  for (const SpaceInfo& info : spaces) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t space_id,
                            to.vectors().EnsureSpace(info.space, info.created_at));
    std::vector<std::pair<std::string, std::vector<float>>> vectors;  // content hash, floats
    ENGRAM_RETURN_IF_ERROR(
        source.ForEachVectorBlob(info.id, [&](const std::string& hash, std::string_view blob) {
          std::optional<std::vector<float>> floats =
              FloatsOf(blob, "a chunk vector", info.space,
                       "`engram context refresh` embeds its chunk again", counts);
          if (floats) vectors.emplace_back(hash, std::move(*floats));
        }));
    for (const auto& [hash, floats] : vectors) {
      ENGRAM_RETURN_IF_ERROR(destination.PutVector(space_id, hash, floats));
      ++counts->chunk_vectors;
    }
  }
  return Status::OK();
}

}  // namespace

Result<StoreCopyCounts> CopyStore(Store& from, Store& to, const TermCounter& count) {
  ENGRAM_ASSIGN_OR_RETURN(const FactStore::Counts held, to.facts().CountFacts());
  if (held.facts > 0) {
    return FailedPrecondition("store: copy: the destination " + held.location + " holds " +
                              std::to_string(held.facts) +
                              " facts; copy into an empty store, so nothing is mixed or lost");
  }
  StoreCopyCounts counts;
  LabelMap labels;
  ENGRAM_RETURN_IF_ERROR(from.ReadTransact([&] {
    return to.Transact([&]() -> Status {
      ENGRAM_RETURN_IF_ERROR(CopyFacts(from, to, count, &labels, &counts));
      ENGRAM_RETURN_IF_ERROR(CopyVersionLinks(from, to, labels, &counts));
      ENGRAM_RETURN_IF_ERROR(CopyVectors(from, to, labels, &counts));
      ENGRAM_RETURN_IF_ERROR(CopyHypotheses(from, to, &counts));
      return CopyAttachments(from, to, &counts);
    });
  }));
  return counts;
}

}  // namespace engram
