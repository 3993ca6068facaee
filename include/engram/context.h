// Attached files: text files the user attaches (a directory tree or single
// files) are split into overlapping line windows ("chunks") and searched
// with BM25 and, when an embedder is configured, cosine similarity, fused
// like fact search but without the temporal signal.
//
// A chunk is identified by the SHA-256 of its text. Vectors are stored per
// (embedding space, chunk hash), so a chunk whose text is unchanged — after
// an edit elsewhere in its file, in another file, in another attachment —
// is never embedded twice. Plain values; the Engine (engram/engine.h) runs
// the operations.
#ifndef ENGRAM_CONTEXT_H_
#define ENGRAM_CONTEXT_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/explain.h"
#include "engram/options.h"

namespace engram {

struct AttachRequest {
  // Files and directories to attach; at least one. Directories are walked,
  // honouring .gitignore files; named files are attached whatever the
  // .gitignore files say.
  std::vector<std::string> paths;
  // Unique name of the attachment; empty: the last component of the first
  // path (e.g. "src" for "./src/").
  std::string name;
};

// A file left out, and why: "binary (NUL byte in the first 8 KiB)",
// "invalid UTF-8 at byte N", "larger than N bytes", "symlink to a directory
// (not followed)", "not a regular file", "unreadable: ...".
struct SkippedFile {
  std::string path;
  std::string reason;
};

// What an attach or a refresh did to one attachment.
struct AttachReport {
  std::string name;
  size_t files = 0;            // files in the attachment afterwards
  size_t chunks = 0;           // chunks in the attachment afterwards
  size_t files_added = 0;      // files read for the first time
  size_t files_changed = 0;    // files whose content changed
  size_t files_removed = 0;    // files gone from disk (or now skipped)
  size_t files_unchanged = 0;  // same size, mtime or content hash
  size_t chunks_written = 0;   // chunks (re)written for added and changed files
  size_t embed_calls = 0;      // calls to Embedder::Embed
  size_t embedded = 0;         // chunk texts embedded (unique hashes)
  // Chunks written whose vector already existed in the active space
  // (same text elsewhere, or before the edit).
  size_t reused = 0;
  // Chunks left without a vector (no embedder, or it failed); the next
  // refresh embeds them. Lexical search finds them meanwhile.
  size_t unembedded = 0;
  std::vector<SkippedFile> skipped;
  std::vector<std::string> warnings;  // e.g. the embedder failed
};

struct Attachment {
  std::string name;
  std::vector<std::string> roots;  // absolute paths as attached
  size_t files = 0;
  size_t chunks = 0;
  Timestamp created_at = 0;    // ms since the epoch, UTC
  Timestamp refreshed_at = 0;  // the last attach or refresh
};

struct ContextSearchOptions {
  size_t k = 8;  // results wanted; default 8
  // Attachments searched, by name; empty: all. An unknown name is NotFound.
  std::vector<std::string> attachments;
  // Semantic and lexical blend weights for this search; unset: the engine's
  // (the provider's defaults). The temporal weight is ignored.
  std::optional<FusionWeights> weights;
};

// One chunk found. Lines are 1-based and inclusive.
struct ContextHit {
  std::string attachment;
  std::string path;  // absolute
  int64_t start_line = 0;
  int64_t end_line = 0;
  std::string text;
  double score = 0.0;     // the blend, in [0, 1]
  SignalValue lexical;    // BM25 over the searched attachments' chunks
  SignalValue semantic;   // cosine with the query vector
  FusionWeights weights;  // effective weights (temporal always 0)
};

struct ContextSearchResponse {
  std::vector<ContextHit> hits;
  std::vector<std::string> query_terms;  // analysed terms of the query
  size_t candidates = 0;                 // chunks scored before the cut to k
  // The query was embedded and compared with the chunks' vectors; false:
  // lexical only (no embedder, or it failed: see warnings).
  bool semantic = false;
  size_t unembedded = 0;  // searched chunks without a vector in the active space
  std::vector<std::string> warnings;
};

}  // namespace engram

#endif  // ENGRAM_CONTEXT_H_
