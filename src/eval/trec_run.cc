#include "src/eval/trec_run.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <unordered_set>
#include <vector>

#include "src/eval/text_file.h"

namespace engram {
namespace {

bool IsTrecToken(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f') {
      return false;
    }
  }
  return true;
}

void AppendScore(double score, std::string* out) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof(buffer), score);
  out->append(buffer, ptr);
}

}  // namespace

Result<EvalRun> ParseTrecRun(std::string_view text, const std::filesystem::path& source) {
  EvalRun run;
  // Doc ids seen so far, per query; views into `text`.
  std::map<std::string_view, std::unordered_set<std::string_view>> seen;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = SplitWhitespace(lines[i]);
    if (fields.empty()) continue;
    const std::string where = FileLine(source, i + 1);
    if (fields.size() != 6) {
      return InvalidArgument("eval: load trec run: " + where +
                             ": want 6 fields \"qid Q0 docno rank score tag\", got " +
                             std::to_string(fields.size()));
    }
    double score = 0.0;
    if (!ParseDouble(fields[4], &score) || std::isnan(score)) {
      return InvalidArgument("eval: load trec run: " + where + ": score \"" +
                             std::string(fields[4]) + "\" is not a number");
    }
    if (!seen[fields[0]].insert(fields[2]).second) {
      return InvalidArgument("eval: load trec run: " + where + ": doc \"" + std::string(fields[2]) +
                             "\" listed twice for query \"" + std::string(fields[0]) + "\"");
    }
    run[std::string(fields[0])].push_back(ScoredDoc{std::string(fields[2]), score});
  }
  return run;
}

Result<EvalRun> LoadTrecRun(const std::filesystem::path& path) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "load trec run"));
  return ParseTrecRun(text, path);
}

Result<std::string> FormatTrecRun(const EvalRun& run, std::string_view tag) {
  if (!IsTrecToken(tag)) {
    return InvalidArgument("eval: format trec run: run tag \"" + std::string(tag) +
                           "\" must be non-empty without whitespace");
  }
  std::string out;
  for (const auto& [qid, docs] : run) {
    if (docs.empty()) continue;
    if (!IsTrecToken(qid)) {
      return InvalidArgument("eval: format trec run: query id \"" + qid +
                             "\" must be non-empty without whitespace");
    }
    for (size_t i = 0; i < docs.size(); ++i) {
      const ScoredDoc& doc = docs[i];
      if (!IsTrecToken(doc.doc_id)) {
        return InvalidArgument("eval: format trec run: query \"" + qid + "\": doc id \"" +
                               doc.doc_id + "\" must be non-empty without whitespace");
      }
      if (!std::isfinite(doc.score)) {
        return InvalidArgument("eval: format trec run: query \"" + qid + "\": doc \"" + doc.doc_id +
                               "\" has a non-finite score");
      }
      out += qid;
      out += " Q0 ";
      out += doc.doc_id;
      out += ' ';
      out += std::to_string(i + 1);
      out += ' ';
      AppendScore(doc.score, &out);
      out += ' ';
      out += tag;
      out += '\n';
    }
  }
  return out;
}

Status WriteTrecRun(const EvalRun& run, std::string_view tag, const std::filesystem::path& path) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, FormatTrecRun(run, tag));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return IOError("eval: write trec run: cannot open " + path.string() + ": " +
                   std::strerror(errno));
  }
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) {
    return IOError("eval: write trec run: write failed for " + path.string());
  }
  return Status::OK();
}

}  // namespace engram
