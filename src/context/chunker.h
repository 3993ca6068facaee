// Chunker: splits a text file into overlapping windows of whole lines for
// retrieval. Pure functions, thread-safe.
//
// A window holds consecutive lines, at most `max_bytes` of them (line ends
// included). It ends after the first blank line past half that budget when
// there is one, else with the last line that fits: a boundary then depends
// on the text near it rather than on where the window started, so after a
// line is inserted or deleted the windows fall back into step at the next
// such blank line instead of shifting to the end of the file. The next
// window starts `overlap_lines` lines before the end of the previous one,
// fewer when those lines and the next one would not fit together, so
// every window brings at least one new line. A line longer than
// `max_bytes` is a window of its own, cut into pieces of at most
// `max_bytes` at UTF-8 code point boundaries (each piece reports that line
// as its range); windows do not overlap across such a line. Windows of
// nothing but whitespace are dropped.
#ifndef ENGRAM_SRC_CONTEXT_CHUNKER_H_
#define ENGRAM_SRC_CONTEXT_CHUNKER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct ChunkerOptions {
  size_t max_bytes = 1200;   // most bytes of one chunk; default 1,200; at least 4
  size_t overlap_lines = 2;  // lines shared with the previous chunk; default 2
};

struct TextChunk {
  int64_t start_line = 0;  // 1-based, inclusive
  int64_t end_line = 0;    // inclusive
  std::string text;        // the lines' bytes, line ends included
};

// The chunks of valid UTF-8 `text`, in order.
std::vector<TextChunk> ChunkText(std::string_view text, const ChunkerOptions& options);

// The chunker settings as stored with an attachment ("1200/2"): chunks cut
// with other settings are cut again.
std::string ChunkingKey(const ChunkerOptions& options);

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_CHUNKER_H_
