// EngineImpl's attached files (include/engram/context.h): attach, refresh,
// detach, list and search. Files are read and chunked outside the lock,
// missing vectors embedded outside it too, and everything an operation
// writes goes into the store in one transaction at the end.
#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "src/context/context_search.h"
#include "src/context/file_scanner.h"
#include "src/engine/engine_impl.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

constexpr size_t kMaxNameBytes = 128;

SyncOptions SyncOptionsOf(const ContextOptions& options) {
  SyncOptions sync;
  sync.scan.max_file_bytes = options.max_file_bytes;
  sync.scan.follow_links_out = options.follow_links_out;
  sync.chunker.max_bytes = options.chunk_bytes;
  sync.chunker.overlap_lines = options.overlap_lines;
  return sync;
}

Status CheckName(const std::string& name) {
  if (name.empty()) return InvalidArgument("the attachment name is empty");
  if (name.size() > kMaxNameBytes) {
    return InvalidArgument("the attachment name is longer than " + std::to_string(kMaxNameBytes) +
                           " bytes");
  }
  for (char c : name) {
    if (static_cast<unsigned char>(c) < 0x20) {
      return InvalidArgument("the attachment name '" + name + "' holds a control character");
    }
  }
  return Status::OK();
}

// "src" for "/work/repo/src"; the whole path for "/".
std::string DefaultName(const std::string& absolute_path) {
  const std::string name = std::filesystem::path(absolute_path).filename().string();
  return name.empty() ? absolute_path : name;
}

// The chunk texts to embed: those of rewritten files and, from the chunks
// that stay, those still without a vector; once per hash, minus the hashes
// that already have a vector.
std::vector<ChunkToEmbed> TextsToEmbed(const SyncPlan& plan,
                                       const std::vector<ChunkToEmbed>& stored_missing,
                                       const std::unordered_set<std::string>& with_vectors) {
  std::set<std::string> rewritten(plan.removed.begin(), plan.removed.end());
  for (const FileUpdate& u : plan.updates) {
    if (u.rechunked) rewritten.insert(u.file.path);
  }
  std::unordered_set<std::string> seen(with_vectors.begin(), with_vectors.end());
  std::vector<ChunkToEmbed> out;
  for (const FileUpdate& u : plan.updates) {
    for (const ChunkRow& c : u.chunks) {
      if (seen.insert(c.content_hash).second) out.push_back({c.content_hash, c.text, c.path});
    }
  }
  for (const ChunkToEmbed& c : stored_missing) {
    if (!rewritten.count(c.path) && seen.insert(c.content_hash).second) out.push_back(c);
  }
  return out;
}

}  // namespace

Result<AttachReport> EngineImpl::ApplySync(const EngineOptions& options, const std::string& name,
                                           const std::vector<std::string>& roots, int64_t id,
                                           SyncPlan plan) {
  AttachReport report;
  report.name = name;
  report.skipped = std::move(plan.skipped);
  report.files_unchanged = plan.unchanged;
  report.files_removed = plan.removed.size();
  std::vector<std::string> new_hashes;  // distinct
  for (const FileUpdate& u : plan.updates) {
    if (u.added) ++report.files_added;
    if (u.rechunked && !u.added) ++report.files_changed;
    report.chunks_written += u.chunks.size();
    for (const ChunkRow& c : u.chunks) new_hashes.push_back(c.content_hash);
  }
  std::sort(new_hashes.begin(), new_hashes.end());
  new_hashes.erase(std::unique(new_hashes.begin(), new_hashes.end()), new_hashes.end());

  // Which texts need a vector, then embed them outside the lock.
  int64_t space_id = 0;
  std::vector<std::pair<std::string, std::vector<float>>> vectors;
  if (options.embedder) {
    const Embedder& embedder = *options.embedder;
    std::vector<ChunkToEmbed> todo;
    {
      std::lock_guard lock(mutex_);
      ENGRAM_ASSIGN_OR_RETURN(space_id, EnsureSpaceLocked(embedder, options.clock->NowMillis()));
      ENGRAM_ASSIGN_OR_RETURN(std::unordered_set<std::string> with_vectors,
                              store_->chunks().WithVectors(space_id, new_hashes));
      // Written chunks that need no text of their own embedded: their text
      // has a vector already, or another chunk written now has their text.
      report.reused = report.chunks_written - (new_hashes.size() - with_vectors.size());
      std::vector<ChunkToEmbed> stored_missing;
      if (id != 0) {
        ENGRAM_ASSIGN_OR_RETURN(stored_missing, store_->chunks().WithoutVectors(id, space_id));
      }
      todo = TextsToEmbed(plan, stored_missing, with_vectors);
    }
    const size_t dimension = embedder.Space().dimension;
    const size_t batch = std::max<size_t>(1, options.vector.embed_batch);
    for (size_t begin = 0; begin < todo.size(); begin += batch) {
      const size_t end = std::min(todo.size(), begin + batch);
      std::vector<std::string> texts;
      for (size_t i = begin; i < end; ++i) texts.push_back(todo[i].text);
      ++report.embed_calls;
      auto embedded = embedder.Embed(texts, EmbedPurpose::kDocument);
      if (!embedded.ok() || embedded->size() != texts.size()) {
        // The provider is down or misbehaving: the rest stay without a
        // vector until the next refresh.
        report.warnings.push_back(
            "embedding " + std::to_string(todo.size() - begin) + " of " +
            std::to_string(todo.size()) + " chunk(s) failed; they stay without a vector until " +
            "the next refresh: " +
            (embedded.ok() ? "embedder " + embedder.Space().Key() + " returned " +
                                 std::to_string(embedded->size()) + " vectors for " +
                                 std::to_string(texts.size()) + " texts"
                           : embedded.status().message()));
        break;
      }
      report.embedded += texts.size();
      for (size_t i = begin; i < end; ++i) {
        std::vector<float>& v = (*embedded)[i - begin];
        Status ok = NormalizeWindowsInPlace(v, dimension, embedder.Space().MaxVectorsPerDocument());
        if (!ok.ok()) {
          report.warnings.push_back(todo[i].path + ": a chunk got a bad vector from " +
                                    embedder.Space().Key() + ": " + ok.message());
          continue;
        }
        vectors.emplace_back(todo[i].content_hash, std::move(v));
      }
    }
  }

  std::lock_guard lock(mutex_);
  const Timestamp now = options.clock->NowMillis();
  const std::string chunking = ChunkingKey(SyncOptionsOf(options.context).chunker);
  StoredAttachment after;
  ENGRAM_RETURN_IF_ERROR(store_->Transact([&]() -> Status {
    if (id == 0) {
      ENGRAM_ASSIGN_OR_RETURN(id, store_->chunks().Create(name, roots, chunking, now));
    } else {
      auto current = store_->chunks().Find(name);
      if (!current.ok() || current->id != id) {
        return NotFound("attachment '" + name + "' was detached meanwhile");
      }
      ENGRAM_RETURN_IF_ERROR(store_->chunks().Touch(id, chunking, now));
    }
    for (const std::string& path : plan.removed) {
      ENGRAM_RETURN_IF_ERROR(store_->chunks().RemoveFile(id, path));
    }
    for (const FileUpdate& u : plan.updates) {
      ENGRAM_RETURN_IF_ERROR(store_->chunks().PutFile(id, u.file));
      if (u.rechunked)
        ENGRAM_RETURN_IF_ERROR(store_->chunks().ReplaceChunks(id, u.file.path, u.chunks));
    }
    for (const auto& [hash, v] : vectors) {
      ENGRAM_RETURN_IF_ERROR(store_->chunks().PutVector(space_id, hash, v));
    }
    ENGRAM_RETURN_IF_ERROR(store_->chunks().DropUnusedVectors().status());
    ENGRAM_ASSIGN_OR_RETURN(after, store_->chunks().Find(name));
    if (!options.embedder) return Status::OK();
    ENGRAM_ASSIGN_OR_RETURN(int64_t missing, store_->chunks().CountWithoutVectors({id}, space_id));
    report.unembedded = static_cast<size_t>(missing);
    return Status::OK();
  }));
  report.files = after.info.files;
  report.chunks = after.info.chunks;
  if (!options.embedder) report.unembedded = report.chunks;
  return report;
}

Result<AttachReport> EngineImpl::Attach(const AttachRequest& request) {
  const std::shared_ptr<const EngineOptions> options = Options();
  if (request.paths.empty()) return InvalidArgument("context: attach: no path given");
  std::vector<std::string> roots;
  for (const std::string& p : request.paths) {
    std::string root = AbsolutePath(p);
    if (std::find(roots.begin(), roots.end(), root) == roots.end()) roots.push_back(root);
  }
  const std::string name = request.name.empty() ? DefaultName(roots.front()) : request.name;
  ENGRAM_RETURN_IF_ERROR(CheckName(name).WithContext("context: attach"));
  {
    std::lock_guard lock(mutex_);
    auto found = store_->chunks().Find(name);
    if (found.ok()) {
      return Status(StatusCode::kAlreadyExists,
                    "context: attach: an attachment named '" + name +
                        "' already exists (refresh it, detach it, or choose another --name)");
    }
    if (found.status().code() != StatusCode::kNotFound) {
      return found.status().WithContext("context: attach");
    }
  }
  auto plan = PlanSync(roots, {}, SyncOptionsOf(options->context));
  if (!plan.ok()) return plan.status().WithContext("context: attach");
  auto report = ApplySync(*options, name, roots, 0, std::move(*plan));
  if (!report.ok()) return report.status().WithContext("context: attach");
  return report;
}

Result<std::vector<Attachment>> EngineImpl::Attachments() {
  std::lock_guard lock(mutex_);
  auto list = store_->chunks().List();
  if (!list.ok()) return list.status().WithContext("context: list");
  std::vector<Attachment> out;
  for (StoredAttachment& a : *list) out.push_back(std::move(a.info));
  return out;
}

Result<std::vector<AttachReport>> EngineImpl::RefreshAttachments(const std::string& name) {
  const std::shared_ptr<const EngineOptions> options = Options();
  const SyncOptions sync = SyncOptionsOf(options->context);
  std::vector<StoredAttachment> targets;
  {
    std::lock_guard lock(mutex_);
    if (name.empty()) {
      auto list = store_->chunks().List();
      if (!list.ok()) return list.status().WithContext("context: refresh");
      targets = std::move(*list);
    } else {
      auto found = store_->chunks().Find(name);
      if (!found.ok()) return found.status().WithContext("context: refresh");
      targets.push_back(std::move(*found));
    }
  }
  std::vector<AttachReport> reports;
  for (const StoredAttachment& a : targets) {
    std::vector<StoredFile> files;
    {
      std::lock_guard lock(mutex_);
      auto stored = store_->chunks().Files(a.id);
      if (!stored.ok())
        return stored.status().WithContext("context: refresh '" + a.info.name + "'");
      files = std::move(*stored);
    }
    // A root gone from disk takes its files with it; the others are read.
    std::vector<std::string> roots;
    std::vector<std::string> warnings;
    for (const std::string& root : a.info.roots) {
      std::error_code ec;
      if (std::filesystem::exists(root, ec)) {
        roots.push_back(root);
      } else {
        warnings.push_back("'" + root + "' no longer exists; its files were dropped");
      }
    }
    SyncOptions this_sync = sync;
    this_sync.rechunk = a.chunking != ChunkingKey(sync.chunker);
    auto plan = PlanSync(roots, files, this_sync);
    if (!plan.ok()) return plan.status().WithContext("context: refresh '" + a.info.name + "'");
    auto report = ApplySync(*options, a.info.name, a.info.roots, a.id, std::move(*plan));
    if (!report.ok()) return report.status().WithContext("context: refresh '" + a.info.name + "'");
    report->warnings.insert(report->warnings.begin(), warnings.begin(), warnings.end());
    reports.push_back(std::move(*report));
  }
  return reports;
}

Result<Attachment> EngineImpl::Detach(const std::string& name) {
  std::lock_guard lock(mutex_);
  Result<StoredAttachment> found = NotFound("");
  Status s = store_->Transact([&]() -> Status {
    found = store_->chunks().Find(name);
    ENGRAM_RETURN_IF_ERROR(found.status());
    ENGRAM_RETURN_IF_ERROR(store_->chunks().Delete(found->id));
    return store_->chunks().DropUnusedVectors().status();
  });
  if (!s.ok()) return s.WithContext("context: detach");
  return found->info;
}

Result<ContextSearchResponse> EngineImpl::SearchContext(const std::string& query,
                                                        const ContextSearchOptions& options) {
  const std::shared_ptr<const EngineOptions> engine_options = Options();
  if (query.empty()) return InvalidArgument("context: search: the query is empty");
  ContextSearchResponse response;
  const LexicalQuery lexical = AnalyzeQuery(query, engine_options->query.translate);
  response.query_terms = lexical.Terms();
  std::vector<float> query_vector;
  if (engine_options->embedder) {
    auto embedded = EmbedOne(*engine_options->embedder, query, EmbedPurpose::kQuery);
    if (embedded.ok()) {
      query_vector = std::move(*embedded);
    } else {
      response.warnings.push_back("the query could not be embedded; lexical only: " +
                                  embedded.status().message());
    }
  }
  ChunkRankOptions rank;
  rank.k = options.k;
  rank.weights = options.weights.value_or(engine_options->fusion.weights);
  rank.bm25 = engine_options->bm25;
  rank.vector_top_k = engine_options->vector.top_k;
  rank.min_cosine = engine_options->vector.min_cosine;
  std::lock_guard lock(mutex_);
  Status s = store_->ReadTransact([&]() -> Status {
    std::vector<int64_t> ids;
    if (options.attachments.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredAttachment> all, store_->chunks().List());
      for (const StoredAttachment& a : all) ids.push_back(a.id);
    } else {
      for (const std::string& name : options.attachments) {
        ENGRAM_ASSIGN_OR_RETURN(StoredAttachment a, store_->chunks().Find(name));
        ids.push_back(a.id);
      }
    }
    ChunkQueryVector vector;
    if (engine_options->embedder) {
      ENGRAM_ASSIGN_OR_RETURN(vector.space_id, FindSpaceLocked(*engine_options->embedder));
      ENGRAM_ASSIGN_OR_RETURN(int64_t missing,
                              store_->chunks().CountWithoutVectors(ids, vector.space_id));
      response.unembedded = static_cast<size_t>(missing);
      if (vector.space_id != 0 && !query_vector.empty()) vector.vector = query_vector;
      vector.max_windows = engine_options->embedder->Space().MaxVectorsPerDocument();
      response.semantic = !vector.vector.empty();
    }
    return RankChunks(store_->chunks(), ids, lexical, vector, rank, &response);
  });
  if (!s.ok()) return s.WithContext("context: search");
  return response;
}

}  // namespace engram
