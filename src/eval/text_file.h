// Line-oriented text input shared by the eval loaders: read a whole file,
// split it into lines and fields. Pure except ReadTextFile.
//
// Thread-safety: free functions without shared state.
#ifndef ENGRAM_SRC_EVAL_TEXT_FILE_H_
#define ENGRAM_SRC_EVAL_TEXT_FILE_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"

namespace engram {

// Reads the file at `path` as bytes. `operation` names the caller's step in
// the error message, e.g. "load qrels" gives
// "eval: load qrels: cannot read /x/qrels.tsv: No such file or directory".
Result<std::string> ReadTextFile(const std::filesystem::path& path, std::string_view operation);

// Splits `text` at '\n'; a trailing '\r' is dropped from each line, and a
// final newline does not make an extra empty line. Line i is numbered i + 1.
// The views point into `text`.
std::vector<std::string_view> SplitLines(std::string_view text);

// Splits `line` at runs of spaces and tabs, dropping empty fields.
std::vector<std::string_view> SplitWhitespace(std::string_view line);

// Splits `line` at every '\t' (empty fields kept).
std::vector<std::string_view> SplitTabs(std::string_view line);

// `text` without leading and trailing spaces and tabs.
std::string_view TrimSpaces(std::string_view text);

// Parses a whole base-10 int (optional sign); false on anything else.
bool ParseInt(std::string_view text, int* out);

// Parses a whole decimal or exponent-form double (optional '+').
bool ParseDouble(std::string_view text, double* out);

// "<path>:<line>", the prefix of every bad-input message.
std::string FileLine(const std::filesystem::path& path, size_t line);

}  // namespace engram

#endif  // ENGRAM_SRC_EVAL_TEXT_FILE_H_
