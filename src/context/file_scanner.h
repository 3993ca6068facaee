// FileScanner: finds the text files of an attachment on disk and reads
// them. The only code of the context module that touches the filesystem
// (plain std::filesystem), so tests point it at temporary directories.
//
// Directories are walked in name order, honouring .gitignore files: those
// of the walked directories and, when the root lies inside a git work tree
// (a parent holds `.git`), those of its parents up to the tree's top. Any
// `.git` entry is skipped. Files named as roots are taken whatever the
// .gitignore files say.
//
// Symlinks: a symlink to a file inside the roots is read (its target's size
// and mtime); one whose target resolves outside every root is skipped with
// a note unless ScanOptions::follow_links_out, so a link in a shared tree
// cannot carry a private file (say /etc/shadow) into the memory. A symlink
// to a directory is not followed (skipped with a note), so a link cycle can
// never loop; a root that is a symlink is followed, since the user named
// it. Broken links and special files are skipped with a note.
//
// Thread-safety: the functions are thread-safe; the files may change under
// them, which a later refresh sees.
#ifndef ENGRAM_SRC_CONTEXT_FILE_SCANNER_H_
#define ENGRAM_SRC_CONTEXT_FILE_SCANNER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engram/context.h"
#include "engram/status.h"

namespace engram {

struct ScanOptions {
  // Files larger than this are skipped with a note, in bytes. Default 1 MiB.
  uint64_t max_file_bytes = uint64_t{1} << 20;
  // Read symlinks to files outside the roots too. Default false.
  bool follow_links_out = false;
};

struct ScannedFile {
  std::string path;  // absolute, lexically normal
  uint64_t size = 0;
  int64_t mtime_ns = 0;  // last write time, ns on the filesystem clock
};

struct ScanResult {
  std::vector<ScannedFile> files;  // sorted by path, no duplicates
  std::vector<SkippedFile> skipped;
};

// Walks `roots` (files or directories). NotFound naming the first root that
// does not exist; nothing else fails the scan (unreadable directories are
// skipped with a note).
Result<ScanResult> ScanFiles(const std::vector<std::string>& roots, const ScanOptions& options);

struct FileText {
  std::string text;         // valid UTF-8 when skip_reason is empty
  std::string skip_reason;  // why the file is not text: binary, invalid UTF-8, too large, ...
};

// Reads a file for chunking. Never fails: a file that cannot be read or is
// not text comes back with a skip reason.
FileText ReadTextFile(const std::string& path, uint64_t max_bytes);

// `path` made absolute (against the working directory) and lexically
// normal, without a trailing separator.
std::string AbsolutePath(const std::string& path);

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_FILE_SCANNER_H_
