#include "src/context/chunker.h"

#include <algorithm>

namespace engram {
namespace {

bool IsBlank(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  });
}

// Lines of `text`, each with its line end; the last may lack one.
std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t begin = 0;
  while (begin < text.size()) {
    const size_t nl = text.find('\n', begin);
    const size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(begin, end - begin));
    begin = end;
  }
  return lines;
}

void Emit(int64_t start_line, int64_t end_line, std::string_view text,
          std::vector<TextChunk>* out) {
  if (IsBlank(text)) return;
  out->push_back({start_line, end_line, std::string(text)});
}

// Cuts one long line into pieces of at most `max_bytes`, never inside a
// UTF-8 sequence.
void CutLongLine(std::string_view line, int64_t line_no, size_t max_bytes,
                 std::vector<TextChunk>* out) {
  size_t begin = 0;
  while (begin < line.size()) {
    size_t end = std::min(line.size(), begin + max_bytes);
    // Back off continuation bytes (10xxxxxx) so the cut falls before a lead byte.
    while (end < line.size() && end > begin + 1 &&
           (static_cast<unsigned char>(line[end]) & 0xC0) == 0x80) {
      --end;
    }
    Emit(line_no, line_no, line.substr(begin, end - begin), out);
    begin = end;
  }
}

// Windows over lines [first, last) of `lines`, none longer than max_bytes.
void ChunkRun(const std::vector<std::string_view>& lines, size_t first, size_t last,
              const ChunkerOptions& options, std::vector<TextChunk>* out) {
  size_t start = first;
  while (start < last) {
    size_t end = start;
    size_t bytes = 0;
    while (end < last && bytes + lines[end].size() <= options.max_bytes)
      bytes += lines[end++].size();
    // End after the first blank line past half the budget, when there is
    // one: a boundary then depends on the text near it, not on where the
    // window started, so after a line is inserted or deleted the windows
    // fall back into step at the next such blank line instead of shifting
    // to the end of the file.
    if (end < last) {
      size_t kept = 0;
      for (size_t cut = start; cut < end; ++cut) {
        kept += lines[cut].size();
        if (kept >= options.max_bytes / 2 && IsBlank(lines[cut])) {
          end = cut + 1;
          bytes = kept;
          break;
        }
      }
    }
    const char* data = lines[start].data();
    Emit(static_cast<int64_t>(start + 1), static_cast<int64_t>(end), std::string_view(data, bytes),
         out);
    if (end >= last) break;
    // Overlap: as many of the window's last lines as fit with the next line.
    size_t next = end - std::min(options.overlap_lines, end - start - 1);
    size_t carried = 0;
    for (size_t i = next; i < end; ++i) carried += lines[i].size();
    while (next < end && carried + lines[end].size() > options.max_bytes) {
      carried -= lines[next++].size();
    }
    start = next;
  }
}

}  // namespace

std::vector<TextChunk> ChunkText(std::string_view text, const ChunkerOptions& options) {
  ChunkerOptions opts = options;
  opts.max_bytes = std::max<size_t>(opts.max_bytes, 4);  // room for any code point
  const std::vector<std::string_view> lines = SplitLines(text);
  std::vector<TextChunk> out;
  size_t run_start = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].size() <= opts.max_bytes) continue;
    ChunkRun(lines, run_start, i, opts, &out);
    CutLongLine(lines[i], static_cast<int64_t>(i + 1), opts.max_bytes, &out);
    run_start = i + 1;
  }
  ChunkRun(lines, run_start, lines.size(), opts, &out);
  return out;
}

std::string ChunkingKey(const ChunkerOptions& options) {
  return std::to_string(options.max_bytes) + "/" + std::to_string(options.overlap_lines);
}

}  // namespace engram
