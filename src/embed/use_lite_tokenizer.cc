#include "src/embed/use_lite_tokenizer.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <exception>
#include <utility>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"

namespace engram {
namespace {

// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's word-start mark, in UTF-8.
constexpr std::string_view kWordMark = "\xE2\x96\x81";

// Trie nodes are keyed as node * 256 + byte in 32 bits.
constexpr size_t kMaxNodes = size_t{1} << 24;

uint32_t EdgeHash(uint32_t key, uint32_t shift) {
  return static_cast<uint32_t>((key * 2654435761u) >> shift);
}

// Length of valid UTF-8 `text` in UTF-16 code units.
int32_t Utf16Length(std::string_view text) {
  int32_t length = 0;
  size_t pos = 0;
  while (pos < text.size()) length += NextCodePoint(text, &pos) > 0xFFFF ? 2 : 1;
  return length;
}

// Appends '▁' + `normalized` with each ASCII space as '▁'; nothing when
// `normalized` is empty.
void AppendMarked(std::string_view normalized, std::string* out) {
  if (normalized.empty()) return;
  out->append(kWordMark);
  for (const char c : normalized) {
    if (c == ' ') {
      out->append(kWordMark);
    } else {
      out->push_back(c);
    }
  }
}

std::string EntryError(size_t index, std::string_view cause) {
  return "embed: vocab: entry " + std::to_string(index) + ": " + std::string(cause);
}

// Per-thread buffers, reused across calls so Encode allocates little.
struct Workspace {
  std::string text;               // marked text: '▁' + NFKC with spaces as '▁'
  std::vector<int32_t> starts;    // byte offset of each code point
  std::vector<int32_t> cp_index;  // code point index at each byte offset
  std::vector<double> best;       // best path score ending at each position
  std::vector<int32_t> words;     // last piece of that path
};

}  // namespace

Result<std::unique_ptr<UseLiteTokenizer>> UseLiteTokenizer::FromVocabJson(
    std::string_view json_text) {
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json vocab,
                          ParseJson(json_text, "embed: vocab: not valid JSON"));
  if (!vocab.is_array()) return InvalidArgument("embed: vocab: not a JSON array");
  std::vector<Piece> pieces;
  pieces.reserve(vocab.size());
  for (size_t i = 0; i < vocab.size(); ++i) {
    const nlohmann::json& entry = vocab[i];
    if (!entry.is_array() || entry.size() != 2) {
      return InvalidArgument(EntryError(i, "not a [piece, score] pair"));
    }
    if (!entry[0].is_string()) return InvalidArgument(EntryError(i, "piece is not a string"));
    if (!entry[1].is_number() && !entry[1].is_null()) {
      return InvalidArgument(EntryError(i, "score is not a number or null"));
    }
    Piece piece;
    piece.text = entry[0].get<std::string>();
    piece.score = entry[1].is_null() ? 0.0 : entry[1].get<double>();
    pieces.push_back(std::move(piece));
  }
  return FromPieces(std::move(pieces));
}

Result<std::unique_ptr<UseLiteTokenizer>> UseLiteTokenizer::FromPieces(std::vector<Piece> pieces) {
  if (pieces.size() <= kReservedCount) {
    return InvalidArgument("embed: vocab: " + std::to_string(pieces.size()) +
                           " entries, need more than " + std::to_string(kReservedCount));
  }
  std::unique_ptr<UseLiteTokenizer> tokenizer(new UseLiteTokenizer());
  tokenizer->piece_utf16_length_.reserve(pieces.size());
  size_t trie_bytes = 0;  // at most one edge each
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& piece = pieces[i];
    if (piece.text.empty()) return InvalidArgument(EntryError(i, "empty piece"));
    if (!IsValidUtf8(piece.text)) return InvalidArgument(EntryError(i, "piece is not UTF-8"));
    if (!std::isfinite(piece.score)) return InvalidArgument(EntryError(i, "score not finite"));
    tokenizer->piece_utf16_length_.push_back(Utf16Length(piece.text));
    if (i >= kReservedCount) trie_bytes += piece.text.size();
  }

  // The edges go straight into a table with room for every byte to be an
  // edge of its own, and then into one sized for the edges there are, as
  // lookups want it. (A model file keeps the result, so this runs when a
  // model is converted or fully checked, not when one is loaded.)
  tokenizer->root_children_.assign(256, -1);
  tokenizer->node_piece_.push_back(-1);  // the root
  tokenizer->node_score_.push_back(0.0);
  const uint32_t building_bits = EdgeTableBits(trie_bytes);
  std::vector<Edge> building(size_t{1} << building_bits);
  size_t edges = 0;
  for (size_t i = kReservedCount; i < pieces.size(); ++i) {
    int32_t node = 0;
    for (const char c : pieces[i].text) {
      const auto byte = static_cast<uint8_t>(c);
      const uint32_t key = static_cast<uint32_t>(node) * 256 + byte;
      int32_t* child = &tokenizer->root_children_[byte];
      if (node != 0) {
        Edge& slot = building[EdgeSlot(building, 32 - building_bits, key)];
        if (slot.key == kNoKey) {
          slot.key = key;
          ++edges;
        }
        child = &slot.child;
      }
      if (*child < 0) {
        if (tokenizer->node_piece_.size() >= kMaxNodes) {
          return InvalidArgument("embed: vocab: pieces too long in total for the trie");
        }
        *child = static_cast<int32_t>(tokenizer->node_piece_.size());
        tokenizer->node_piece_.push_back(-1);
        tokenizer->node_score_.push_back(0.0);
      }
      node = *child;
    }
    // A repeated piece keeps the later id, as in the original.
    tokenizer->node_piece_[node] = static_cast<int32_t>(i);
    tokenizer->node_score_[node] = pieces[i].score;
  }

  const uint32_t bits = EdgeTableBits(edges);
  tokenizer->edge_shift_ = 32 - bits;
  tokenizer->edge_table_.assign(size_t{1} << bits, Edge{});
  for (const Edge& edge : building) {
    if (edge.key == kNoKey) continue;
    tokenizer->edge_table_[EdgeSlot(tokenizer->edge_table_, tokenizer->edge_shift_, edge.key)] =
        edge;
  }
  tokenizer->tables_ =
      Tables{tokenizer->piece_utf16_length_, tokenizer->node_piece_, tokenizer->node_score_,
             tokenizer->root_children_, tokenizer->edge_table_};
  return tokenizer;
}

Result<std::unique_ptr<UseLiteTokenizer>> UseLiteTokenizer::FromTables(
    const Tables& tables, std::shared_ptr<const void> storage) {
  const auto bad = [](const std::string& what) {
    return Corruption("embed: tokenizer tables: " + what);
  };
  const size_t pieces = tables.piece_utf16_length.size();
  const size_t nodes = tables.node_piece.size();
  const size_t edges = tables.edge_table.size();
  if (pieces <= kReservedCount) return bad(std::to_string(pieces) + " pieces");
  if (nodes == 0 || nodes >= kMaxNodes || tables.node_score.size() != nodes) {
    return bad(std::to_string(nodes) + " nodes with " + std::to_string(tables.node_score.size()) +
               " scores");
  }
  if (tables.root_children.size() != 256) return bad("the root has not 256 children");
  if (edges < 16 || edges > (size_t{1} << 31) || (edges & (edges - 1)) != 0) {
    return bad("an edge table of " + std::to_string(edges) + " slots");
  }
  // Each check below keeps Encode inside the tables: a step back of at
  // least one, a node or piece id in range.
  for (size_t i = 0; i < pieces; ++i) {
    if (tables.piece_utf16_length[i] < 1) return bad("piece " + std::to_string(i) + ": length");
  }
  const auto node_ok = [nodes](int32_t node) {
    return node >= -1 && node < static_cast<int64_t>(nodes);
  };
  for (size_t i = 0; i < nodes; ++i) {
    const int32_t piece = tables.node_piece[i];
    if (piece < -1 || piece >= static_cast<int64_t>(pieces) ||
        !std::isfinite(tables.node_score[i])) {
      return bad("node " + std::to_string(i) + ": piece or score");
    }
  }
  for (const int32_t child : tables.root_children) {
    if (!node_ok(child)) return bad("a root child out of range");
  }
  size_t free_slots = 0;  // a lookup of an absent key ends at one, and gives its -1
  for (const Edge& edge : tables.edge_table) {
    if (edge.key == kNoKey) {
      if (edge.child != -1) return bad("a free edge slot with a child");
      ++free_slots;
    } else if (edge.key / 256 >= nodes || edge.child < 0 || !node_ok(edge.child)) {
      return bad("an edge out of range");
    }
  }
  if (free_slots == 0) return bad("an edge table with no free slot");
  std::unique_ptr<UseLiteTokenizer> tokenizer(new UseLiteTokenizer());
  tokenizer->tables_ = tables;
  tokenizer->edge_shift_ = 32 - static_cast<uint32_t>(std::countr_zero(edges));
  tokenizer->storage_ = std::move(storage);
  return tokenizer;
}

uint32_t UseLiteTokenizer::EdgeTableBits(size_t edges) {
  uint32_t bits = 4;
  while ((size_t{1} << bits) < 2 * edges) ++bits;
  return bits;
}

size_t UseLiteTokenizer::EdgeSlot(std::span<const Edge> table, uint32_t shift, uint32_t key) {
  const size_t mask = table.size() - 1;
  size_t slot = EdgeHash(key, shift);
  while (table[slot].key != key && table[slot].key != kNoKey) slot = (slot + 1) & mask;
  return slot;
}

int32_t UseLiteTokenizer::Child(int32_t node, uint8_t byte) const {
  if (node == 0) return tables_.root_children[byte];
  const uint32_t key = static_cast<uint32_t>(node) * 256 + byte;
  return tables_.edge_table[EdgeSlot(tables_.edge_table, edge_shift_, key)].child;
}

std::vector<int32_t> UseLiteTokenizer::Encode(std::string_view text) const {
  thread_local Workspace ws;

  // 1. NFKC (the identity on ASCII), then the word marks.
  ws.text.clear();
  if (IsAscii(text)) {
    AppendMarked(text, &ws.text);
  } else {
    AppendMarked(Nfkc(text), &ws.text);
  }
  if (ws.text.empty()) return {};
  const std::string& s = ws.text;
  const size_t num_bytes = s.size();

  // Code point boundaries (the text is valid UTF-8 here).
  ws.starts.clear();
  ws.cp_index.assign(num_bytes + 1, -1);
  for (size_t b = 0; b < num_bytes; ++b) {
    if ((static_cast<uint8_t>(s[b]) & 0xC0) != 0x80) {
      ws.cp_index[b] = static_cast<int32_t>(ws.starts.size());
      ws.starts.push_back(static_cast<int32_t>(b));
    }
  }
  const size_t n = ws.starts.size();
  ws.cp_index[num_bytes] = static_cast<int32_t>(n);

  // 2. Viterbi. Edges are relaxed by start position ascending, so at each
  // end position they arrive in the original's order; with `>=` the later
  // start wins a tie, and a best of exactly 0 counts as unset.
  ws.best.assign(n + 1, 0.0);
  ws.words.assign(n + 1, 0);
  double* best = ws.best.data();
  int32_t* words = ws.words.data();
  auto relax = [best, words](size_t start, size_t end, double score, int32_t id) {
    const double total = score + best[start];
    if (best[end] == 0.0 || total >= best[end]) {
      best[end] = total;
      words[end] = id;
    }
  };
  for (size_t k = 0; k < n; ++k) {
    size_t pos = static_cast<size_t>(ws.starts[k]);
    int32_t node = tables_.root_children[static_cast<uint8_t>(s[pos])];
    bool matched = false;
    while (node >= 0) {
      ++pos;
      const auto at = static_cast<size_t>(node);
      const int32_t piece = tables_.node_piece[at];
      // A piece ends only where a code point does; tables read from a
      // file can hold one that would end inside it.
      const int32_t end = ws.cp_index[pos];
      if (piece >= 0 && end >= 0) {
        relax(k, static_cast<size_t>(end), tables_.node_score[at], piece);
        matched = true;
      }
      if (pos == num_bytes) break;
      node = Child(node, static_cast<uint8_t>(s[pos]));
    }
    if (!matched) relax(k, k + 1, 0.0, kUnknownId);
  }

  // Backward pass, stepping by each piece's UTF-16 length as the original
  // does, then 3. one kUnknownId per run of them.
  std::vector<int32_t> ids;
  int64_t iter = static_cast<int64_t>(n);
  bool previous_unknown = false;
  while (iter > 0) {
    const int32_t id = words[iter];
    if (!(previous_unknown && id == kUnknownId)) ids.push_back(id);
    previous_unknown = id == kUnknownId;
    iter -= tables_.piece_utf16_length[static_cast<size_t>(id)];
  }
  std::reverse(ids.begin(), ids.end());
  return ids;
}

std::vector<int32_t> UseLiteTokenizer::Encode(std::string_view text, size_t max_tokens) const {
  std::vector<int32_t> ids = Encode(text);
  if (ids.size() > max_tokens) ids.resize(max_tokens);
  return ids;
}

}  // namespace engram
