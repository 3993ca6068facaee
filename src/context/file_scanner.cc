#include "src/context/file_scanner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>
#include <utility>

#include "src/common/utf8.h"
#include "src/context/gitignore.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

constexpr size_t kBinaryProbeBytes = 8 << 10;

int64_t MtimeNs(const fs::path& path, std::error_code& ec) {
  const auto t = fs::last_write_time(path, ec);
  if (ec) return 0;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

std::string TooLarge(uint64_t size, uint64_t max) {
  return "larger than " + std::to_string(max) + " bytes (" + std::to_string(size) +
         "; context.max_file_bytes)";
}

std::string ReadWhole(const fs::path& path, std::error_code* ec) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *ec = std::error_code(errno, std::generic_category());
    return {};
  }
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The top of the git work tree holding `dir`: the nearest directory at or
// above it with a `.git` entry; empty when there is none.
fs::path GitTop(const fs::path& dir) {
  std::error_code ec;
  for (fs::path d = dir;; d = d.parent_path()) {
    if (fs::exists(d / ".git", ec)) return d;
    if (d == d.parent_path()) return {};
  }
}

std::string Relative(const fs::path& path, const fs::path& top) {
  const std::string rel = path.lexically_relative(top).generic_string();
  return rel == "." ? std::string() : rel;
}

class Walker {
 public:
  // `roots`: the attached roots with every symlink resolved.
  Walker(const ScanOptions& options, std::vector<fs::path> roots, ScanResult* out)
      : options_(options), roots_(std::move(roots)), out_(out) {}

  // Adds a regular file (or a symlink to one), or skips it when too large.
  void AddFile(const fs::path& path) {
    std::error_code ec;
    const uint64_t size = fs::file_size(path, ec);
    if (ec) return Skip(path, "unreadable: " + ec.message());
    if (size > options_.max_file_bytes) return Skip(path, TooLarge(size, options_.max_file_bytes));
    const int64_t mtime = MtimeNs(path, ec);
    if (ec) return Skip(path, "unreadable: " + ec.message());
    out_->files.push_back({path.string(), size, mtime});
  }

  // Walks directory root `dir`, pushing the .gitignore files of its git
  // work tree's parents first.
  void WalkRoot(const fs::path& dir) {
    const fs::path top_found = GitTop(dir);
    const fs::path top = top_found.empty() ? dir : top_found;
    GitignoreStack stack;
    std::vector<fs::path> parents;  // from dir's parent up to the top
    for (fs::path d = dir; d != top && d != d.parent_path();) {
      d = d.parent_path();
      parents.push_back(d);
    }
    std::reverse(parents.begin(), parents.end());
    for (const fs::path& p : parents) PushGitignore(p, Relative(p, top), &stack);
    Walk(dir, top, &stack);
  }

 private:
  void Skip(const fs::path& path, std::string reason) {
    out_->skipped.push_back({path.string(), std::move(reason)});
  }

  static void PushGitignore(const fs::path& dir, const std::string& rel, GitignoreStack* stack) {
    std::error_code ec;
    const fs::path file = dir / ".gitignore";
    if (!fs::is_regular_file(file, ec)) return;
    stack->Push(rel, GitignoreFile::Parse(ReadWhole(file, &ec)));
  }

  void Walk(const fs::path& dir, const fs::path& top, GitignoreStack* stack) {
    const size_t depth = stack->size();
    PushGitignore(dir, Relative(dir, top), stack);
    std::error_code ec;
    std::vector<fs::directory_entry> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(*it);
    }
    if (ec) Skip(dir, "unreadable directory: " + ec.message());
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.path() < b.path(); });
    for (const fs::directory_entry& entry : entries) {
      const fs::path& path = entry.path();
      if (path.filename() == ".git") continue;
      const std::string rel = Relative(path, top);
      const fs::file_status link = entry.symlink_status(ec);
      if (fs::is_symlink(link)) {
        if (stack->Ignored(rel, false)) continue;
        const fs::file_status target = fs::status(path, ec);
        if (ec || !fs::exists(target)) {
          Skip(path, "broken symlink");
        } else if (fs::is_directory(target)) {
          Skip(path, "symlink to a directory (not followed)");
        } else if (fs::is_regular_file(target)) {
          if (options_.follow_links_out || Inside(fs::canonical(path, ec))) {
            AddFile(path);
          } else {
            Skip(path, "symlink to a file outside the attached roots (not followed)");
          }
        } else {
          Skip(path, "not a regular file");
        }
      } else if (fs::is_directory(link)) {
        if (!stack->Ignored(rel, true)) Walk(path, top, stack);
      } else if (!stack->Ignored(rel, false)) {
        if (fs::is_regular_file(link)) {
          AddFile(path);
        } else {
          Skip(path, "not a regular file");
        }
      }
    }
    stack->Truncate(depth);
  }

  // True when `real` (a resolved path) is one of the roots or below one.
  bool Inside(const fs::path& real) const {
    for (const fs::path& root : roots_) {
      const auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
      if (r == root.end()) return true;
    }
    return false;
  }

  const ScanOptions& options_;
  const std::vector<fs::path> roots_;
  ScanResult* out_;
};

}  // namespace

std::string AbsolutePath(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  if (ec) p = path;
  p = p.lexically_normal();
  std::string s = p.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<ScanResult> ScanFiles(const std::vector<std::string>& roots, const ScanOptions& options) {
  ScanResult result;
  std::vector<fs::path> resolved;
  for (const std::string& root : roots) {
    std::error_code ec;
    const fs::path real = fs::canonical(AbsolutePath(root), ec);
    if (!ec) resolved.push_back(real);
  }
  Walker walker(options, std::move(resolved), &result);
  for (const std::string& root : roots) {
    const fs::path path = AbsolutePath(root);
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      return NotFound("'" + root + "': no such file or directory");
    }
    if (fs::is_directory(status)) {
      walker.WalkRoot(path);
    } else if (fs::is_regular_file(status)) {
      walker.AddFile(path);
    } else {
      result.skipped.push_back({path.string(), "not a regular file"});
    }
  }
  std::sort(result.files.begin(), result.files.end(),
            [](const ScannedFile& a, const ScannedFile& b) { return a.path < b.path; });
  result.files.erase(
      std::unique(result.files.begin(), result.files.end(),
                  [](const ScannedFile& a, const ScannedFile& b) { return a.path == b.path; }),
      result.files.end());
  return result;
}

FileText ReadTextFile(const std::string& path, uint64_t max_bytes) {
  FileText out;
  std::error_code ec;
  const uint64_t size = fs::file_size(path, ec);
  if (ec) {
    out.skip_reason = "unreadable: " + ec.message();
    return out;
  }
  if (size > max_bytes) {
    out.skip_reason = TooLarge(size, max_bytes);
    return out;
  }
  std::string text = ReadWhole(path, &ec);
  if (ec) {
    out.skip_reason = "unreadable: " + ec.message();
    return out;
  }
  if (text.size() > max_bytes) {
    out.skip_reason = TooLarge(text.size(), max_bytes);
    return out;
  }
  if (std::string_view(text).substr(0, kBinaryProbeBytes).find('\0') != std::string_view::npos) {
    out.skip_reason = "binary (NUL byte in the first 8 KiB)";
    return out;
  }
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    out.skip_reason = "invalid UTF-8 at byte " + std::to_string(bad);
    return out;
  }
  out.text = std::move(text);
  return out;
}

}  // namespace engram
