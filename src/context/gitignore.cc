#include "src/context/gitignore.h"

#include <utility>

namespace engram {
namespace {

// Matches a `[...]` class at p[*pi] (the '[') against byte `c`. Returns
// false in `*valid` when the class has no closing ']' (then '[' is literal).
bool MatchClass(std::string_view p, size_t* pi, char c, bool* valid) {
  size_t i = *pi + 1;
  bool negate = false;
  if (i < p.size() && (p[i] == '!' || p[i] == '^')) {
    negate = true;
    ++i;
  }
  bool found = false;
  bool first = true;
  while (i < p.size() && (p[i] != ']' || first)) {
    first = false;
    char lo = p[i];
    if (lo == '\\' && i + 1 < p.size()) lo = p[++i];
    char hi = lo;
    if (i + 2 < p.size() && p[i + 1] == '-' && p[i + 2] != ']') {
      hi = p[i + 2];
      if (hi == '\\' && i + 3 < p.size()) hi = p[++i + 2];
      i += 2;
    }
    if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(lo) &&
        static_cast<unsigned char>(c) <= static_cast<unsigned char>(hi)) {
      found = true;
    }
    ++i;
  }
  *valid = i < p.size();
  if (!*valid) return false;
  *pi = i + 1;
  return found != negate;
}

bool Match(std::string_view p, size_t pi, std::string_view t, size_t ti) {
  while (pi < p.size()) {
    const char c = p[pi];
    if (c == '*') {
      const bool segment_start = pi == 0 || p[pi - 1] == '/';
      const bool double_star = pi + 1 < p.size() && p[pi + 1] == '*';
      const size_t after = pi + 2;
      if (segment_start && double_star && (after == p.size() || p[after] == '/')) {
        if (after == p.size()) return true;  // "x/**": everything below
        // "**/": zero or more whole segments.
        if (Match(p, after + 1, t, ti)) return true;
        for (size_t k = ti; k < t.size(); ++k) {
          if (t[k] == '/' && Match(p, after + 1, t, k + 1)) return true;
        }
        return false;
      }
      while (pi < p.size() && p[pi] == '*') ++pi;
      for (size_t k = ti;; ++k) {
        if (Match(p, pi, t, k)) return true;
        if (k == t.size() || t[k] == '/') return false;
      }
    }
    if (ti == t.size()) return false;
    if (c == '?') {
      if (t[ti] == '/') return false;
      ++pi;
      ++ti;
      continue;
    }
    if (c == '[') {
      bool valid = false;
      size_t next = pi;
      const bool matched = t[ti] != '/' && MatchClass(p, &next, t[ti], &valid);
      if (valid) {
        if (!matched) return false;
        pi = next;
        ++ti;
        continue;
      }
    }
    char literal = c;
    if (c == '\\' && pi + 1 < p.size()) literal = p[++pi];
    if (t[ti] != literal) return false;
    ++pi;
    ++ti;
  }
  return ti == t.size();
}

std::string_view BaseName(std::string_view path) {
  const size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view path) {
  return Match(pattern, 0, path, 0);
}

GitignoreFile GitignoreFile::Parse(std::string_view text) {
  GitignoreFile file;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(begin, end - begin));
    begin = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // Trailing spaces go unless escaped ("\ ").
    while (!line.empty() && line.back() == ' ' &&
           (line.size() < 2 || line[line.size() - 2] != '\\')) {
      line.pop_back();
    }
    if (line.empty() || line[0] == '#') continue;
    Pattern pattern;
    if (line[0] == '!') {
      pattern.negated = true;
      line.erase(0, 1);
    }
    if (!line.empty() && line.back() == '/') {
      pattern.dir_only = true;
      line.pop_back();
    }
    if (!line.empty() && line[0] == '/') {
      pattern.anchored = true;
      line.erase(0, 1);
    }
    if (line.find('/') != std::string::npos) pattern.anchored = true;
    if (line.empty()) continue;
    pattern.glob = std::move(line);
    file.patterns_.push_back(std::move(pattern));
  }
  return file;
}

IgnoreMatch GitignoreFile::Check(std::string_view path, bool is_dir) const {
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (GlobMatch(it->glob, it->anchored ? path : BaseName(path))) {
      return it->negated ? IgnoreMatch::kKept : IgnoreMatch::kIgnored;
    }
  }
  return IgnoreMatch::kNone;
}

void GitignoreStack::Push(std::string base, GitignoreFile file) {
  if (!file.empty()) files_.emplace_back(std::move(base), std::move(file));
}

void GitignoreStack::Truncate(size_t n) {
  if (n < files_.size()) files_.resize(n);
}

bool GitignoreStack::Ignored(std::string_view path, bool is_dir) const {
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    const std::string& base = it->first;
    std::string_view relative = path;
    if (!base.empty()) {
      if (path.size() <= base.size() || path.compare(0, base.size(), base) != 0 ||
          path[base.size()] != '/') {
        continue;
      }
      relative = path.substr(base.size() + 1);
    }
    const IgnoreMatch m = it->second.Check(relative, is_dir);
    if (m != IgnoreMatch::kNone) return m == IgnoreMatch::kIgnored;
  }
  return false;
}

}  // namespace engram
