#include "src/eval/text_file.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace engram {

Result<std::string> ReadTextFile(const std::filesystem::path& path, std::string_view operation) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return IOError("eval: " + std::string(operation) + ": cannot read " + path.string() + ": " +
                   std::strerror(errno));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) {
    return IOError("eval: " + std::string(operation) + ": read failed for " + path.string());
  }
  return std::move(contents).str();
}

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

std::vector<std::string_view> SplitWhitespace(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < line.size()) {
    const size_t begin = line.find_first_not_of(" \t", pos);
    if (begin == std::string_view::npos) break;
    size_t end = line.find_first_of(" \t", begin);
    if (end == std::string_view::npos) end = line.size();
    fields.push_back(line.substr(begin, end - begin));
    pos = end;
  }
  return fields;
}

std::vector<std::string_view> SplitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t end = line.find('\t', start);
    if (end == std::string_view::npos) {
      fields.push_back(line.substr(start));
      return fields;
    }
    fields.push_back(line.substr(start, end - start));
    start = end + 1;
  }
}

std::string_view TrimSpaces(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  const size_t end = text.find_last_not_of(" \t");
  return text.substr(begin, end - begin + 1);
}

namespace {

// std::from_chars over the whole of `text`, also accepting a leading '+'.
template <typename T>
bool ParseWhole(std::string_view text, T* out) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
    if (!text.empty() && text.front() == '-') return false;
  }
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end;
}

}  // namespace

bool ParseInt(std::string_view text, int* out) { return ParseWhole(text, out); }

bool ParseDouble(std::string_view text, double* out) { return ParseWhole(text, out); }

std::string FileLine(const std::filesystem::path& path, size_t line) {
  return path.string() + ":" + std::to_string(line);
}

}  // namespace engram
