#include "src/context/context_sync.h"

#include <map>
#include <set>
#include <utility>

#include "src/common/hash.h"
#include "src/lexical/lexical_searcher.h"

namespace engram {

Result<SyncPlan> PlanSync(const std::vector<std::string>& roots,
                          const std::vector<StoredFile>& stored, const SyncOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(ScanResult scan, ScanFiles(roots, options.scan));
  SyncPlan plan;
  plan.skipped = std::move(scan.skipped);
  std::map<std::string, const StoredFile*> before;
  for (const StoredFile& f : stored) before[f.path] = &f;
  std::set<std::string> kept;
  for (const ScannedFile& found : scan.files) {
    const auto it = before.find(found.path);
    const StoredFile* old = it == before.end() ? nullptr : it->second;
    if (old != nullptr && !options.rechunk && old->size == found.size &&
        old->mtime_ns == found.mtime_ns) {
      kept.insert(found.path);
      ++plan.unchanged;
      continue;
    }
    FileText text = ReadTextFile(found.path, options.scan.max_file_bytes);
    if (!text.skip_reason.empty()) {
      plan.skipped.push_back({found.path, std::move(text.skip_reason)});
      continue;
    }
    kept.insert(found.path);
    FileUpdate update;
    update.file = {found.path, text.text.size(), found.mtime_ns, Sha256Hex(text.text)};
    update.added = old == nullptr;
    update.rechunked =
        old == nullptr || options.rechunk || old->content_hash != update.file.content_hash;
    if (!update.rechunked) ++plan.unchanged;
    if (update.rechunked) {
      for (TextChunk& c : ChunkText(text.text, options.chunker)) {
        ChunkRow row{found.path, c.start_line, c.end_line, Sha256Hex(c.text), std::move(c.text), 0};
        row.terms = CountTerms(row.text);
        update.chunks.push_back(std::move(row));
      }
    }
    plan.updates.push_back(std::move(update));
  }
  for (const StoredFile& f : stored) {
    if (!kept.count(f.path)) plan.removed.push_back(f.path);
  }
  return plan;
}

}  // namespace engram
