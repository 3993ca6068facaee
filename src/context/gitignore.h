// .gitignore rules, as git reads them (gitignore(5)). Pure, thread-safe
// once built.
//
// One GitignoreFile holds the patterns of one file, relative to the
// directory that holds it. Supported: blank lines and `#` comments (`\#`
// for a literal), trailing spaces (unless escaped), negation `!` (`\!` for
// a literal), a trailing `/` for directories only, anchoring by a `/` at
// the start or in the middle, `*` and `?` (never matching `/`), `[...]`
// classes with ranges and `!`/`^` negation, `**` as a whole segment
// (`**/x`, `x/**`, `a/**/b`), and `\` escapes. The last matching pattern
// of a file decides.
//
// A GitignoreStack holds the files met on the way down a tree; the deepest
// file with a matching pattern decides. As in git, a file under an ignored
// directory cannot be re-included: the scanner never enters that directory.
#ifndef ENGRAM_SRC_CONTEXT_GITIGNORE_H_
#define ENGRAM_SRC_CONTEXT_GITIGNORE_H_

#include <string>
#include <string_view>
#include <vector>

namespace engram {

enum class IgnoreMatch {
  kNone,     // no pattern matched
  kIgnored,  // the last matching pattern ignores the path
  kKept,     // the last matching pattern is a negation (`!`)
};

// True when `path` matches glob `pattern` as a whole: `*` and `?` do not
// match `/`, `**` as a whole segment matches any number of segments.
bool GlobMatch(std::string_view pattern, std::string_view path);

class GitignoreFile {
 public:
  // Parses a .gitignore's text; lines that cannot match are dropped.
  static GitignoreFile Parse(std::string_view text);

  // `path`: relative to the .gitignore's directory, `/`-separated, no
  // leading `/`.
  IgnoreMatch Check(std::string_view path, bool is_dir) const;

  bool empty() const { return patterns_.empty(); }

 private:
  struct Pattern {
    std::string glob;  // without `!`, leading `/` and trailing `/`
    bool negated = false;
    bool dir_only = false;
    bool anchored = false;  // matched against the whole path, not the name
  };
  std::vector<Pattern> patterns_;
};

class GitignoreStack {
 public:
  // Adds the rules of a .gitignore in directory `base` (relative to the
  // scanned root, `/`-separated, empty for the root itself). Files must be
  // pushed parents first.
  void Push(std::string base, GitignoreFile file);
  // Files pushed so far; Truncate(n) drops those pushed after the n-th
  // (leaving a directory).
  size_t size() const { return files_.size(); }
  void Truncate(size_t n);

  // Whether `path` (relative to the root, `/`-separated) is ignored.
  bool Ignored(std::string_view path, bool is_dir) const;

 private:
  std::vector<std::pair<std::string, GitignoreFile>> files_;  // parents first
};

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_GITIGNORE_H_
