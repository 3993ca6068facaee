#include "src/eval/qrels.h"

#include <vector>

#include "src/eval/text_file.h"

namespace engram {
namespace {

// Adds one judgment, rejecting a repeated (query, doc) pair.
Status AddJudgment(std::string_view operation, const std::string& where, std::string_view qid,
                   std::string_view doc_id, int grade, Qrels* qrels) {
  Judgments& judgments = (*qrels)[std::string(qid)];
  auto [it, inserted] = judgments.emplace(std::string(doc_id), grade);
  if (!inserted) {
    return InvalidArgument("eval: " + std::string(operation) + ": " + where + ": doc \"" +
                           std::string(doc_id) + "\" judged twice for query \"" + std::string(qid) +
                           "\"");
  }
  return Status::OK();
}

}  // namespace

Result<Qrels> ParseTrecQrels(std::string_view text, const std::filesystem::path& source) {
  constexpr std::string_view kOperation = "load trec qrels";
  Qrels qrels;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::vector<std::string_view> fields = SplitWhitespace(lines[i]);
    if (fields.empty()) continue;
    const std::string where = FileLine(source, i + 1);
    if (fields.size() != 4) {
      return InvalidArgument("eval: load trec qrels: " + where +
                             ": want 4 fields \"qid iter docno rel\", got " +
                             std::to_string(fields.size()));
    }
    int grade = 0;
    if (!ParseInt(fields[3], &grade)) {
      return InvalidArgument("eval: load trec qrels: " + where + ": relevance \"" +
                             std::string(fields[3]) + "\" is not an integer");
    }
    ENGRAM_RETURN_IF_ERROR(AddJudgment(kOperation, where, fields[0], fields[2], grade, &qrels));
  }
  return qrels;
}

Result<Qrels> LoadTrecQrels(const std::filesystem::path& path) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "load trec qrels"));
  return ParseTrecQrels(text, path);
}

Result<Qrels> ParseBeirQrels(std::string_view text, const std::filesystem::path& source) {
  constexpr std::string_view kOperation = "load beir qrels";
  Qrels qrels;
  const std::vector<std::string_view> lines = SplitLines(text);
  bool first = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find_first_not_of(" \t") == std::string_view::npos) continue;
    const bool is_first = first;
    first = false;
    const std::string where = FileLine(source, i + 1);
    std::vector<std::string_view> fields = SplitTabs(lines[i]);
    for (std::string_view& field : fields) field = TrimSpaces(field);
    // Tolerate trailing tabs after the score.
    while (fields.size() > 3 && fields.back().empty()) fields.pop_back();
    if (fields.size() != 3) {
      return InvalidArgument("eval: load beir qrels: " + where +
                             ": want 3 tab-separated fields \"query-id corpus-id score\", got " +
                             std::to_string(fields.size()));
    }
    int grade = 0;
    if (!ParseInt(fields[2], &grade)) {
      if (is_first) continue;  // the header line
      return InvalidArgument("eval: load beir qrels: " + where + ": score \"" +
                             std::string(fields[2]) + "\" is not an integer");
    }
    if (fields[0].empty() || fields[1].empty()) {
      return InvalidArgument("eval: load beir qrels: " + where + ": empty query-id or corpus-id");
    }
    ENGRAM_RETURN_IF_ERROR(AddJudgment(kOperation, where, fields[0], fields[1], grade, &qrels));
  }
  return qrels;
}

Result<Qrels> LoadBeirQrels(const std::filesystem::path& path) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path, "load beir qrels"));
  return ParseBeirQrels(text, path);
}

int CountRelevant(const Judgments& judgments, int relevance_level) {
  int count = 0;
  for (const auto& [doc_id, grade] : judgments) {
    if (grade >= relevance_level) ++count;
  }
  return count;
}

}  // namespace engram
