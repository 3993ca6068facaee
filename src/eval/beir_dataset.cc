#include "src/eval/beir_dataset.h"

#include <nlohmann/json.hpp>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "src/common/json_text.h"
#include "src/common/time_format.h"
#include "src/eval/text_file.h"

namespace engram {

std::string FactContent(const CorpusDoc& d) {
  return d.title.empty() ? d.text : d.title + "\n" + d.text;
}

namespace {

using nlohmann::json;

// Context for the messages of one line: "eval: <operation>: <file>:<line>".
class LineContext {
 public:
  LineContext(std::string_view operation, const std::filesystem::path& source, size_t line)
      : prefix_("eval: " + std::string(operation) + ": " + FileLine(source, line) + ": ") {}

  Status Error(const std::string& cause) const { return InvalidArgument(prefix_ + cause); }

 private:
  std::string prefix_;
};

bool IsAbsent(const json& row, const char* key) {
  auto it = row.find(key);
  return it == row.end() || it->is_null();
}

Status WrongType(const LineContext& context, const std::string& key, const char* want,
                 const json& value) {
  return context.Error("\"" + key + "\" must be " + want + ", not " + value.type_name());
}

// Reads the optional string `key` of `object` into `*out`.
Status ReadString(const LineContext& context, const json& object, const std::string& key,
                  std::string* out) {
  if (IsAbsent(object, key.c_str())) return Status::OK();
  const json& value = object.at(key);
  if (!value.is_string()) return WrongType(context, key, "a string", value);
  *out = value.get<std::string>();
  return Status::OK();
}

Result<std::string> ReadId(const LineContext& context, const json& row) {
  if (IsAbsent(row, "_id")) return context.Error("missing \"_id\"");
  const json& value = row.at("_id");
  std::string id;
  if (value.is_string()) {
    id = value.get<std::string>();
  } else if (value.is_number_integer()) {
    id = value.dump();
  } else {
    return WrongType(context, "_id", "a string", value);
  }
  if (id.empty()) return context.Error("empty \"_id\"");
  return id;
}

Result<std::string> ReadText(const LineContext& context, const json& row) {
  if (IsAbsent(row, "text")) return context.Error("missing \"text\"");
  std::string text;
  ENGRAM_RETURN_IF_ERROR(ReadString(context, row, "text", &text));
  return text;
}

Status ReadTags(const LineContext& context, const json& metadata, std::vector<std::string>* tags) {
  if (IsAbsent(metadata, "tags")) return Status::OK();
  const json& value = metadata.at("tags");
  if (!value.is_array()) {
    return WrongType(context, "metadata.tags", "an array of strings", value);
  }
  for (const json& tag : value) {
    if (!tag.is_string()) {
      return WrongType(context, "metadata.tags[]", "a string", tag);
    }
    tags->push_back(tag.get<std::string>());
  }
  return Status::OK();
}

Status ReadScope(const LineContext& context, const json& metadata, std::string* scope) {
  ENGRAM_RETURN_IF_ERROR(ReadString(context, metadata, "scope", scope));
  if (scope->empty()) return context.Error("empty \"metadata.scope\"");
  return Status::OK();
}

// Returns the row's metadata object, or nullptr when it has none.
Result<const json*> ReadMetadata(const LineContext& context, const json& row) {
  if (IsAbsent(row, "metadata")) return static_cast<const json*>(nullptr);
  const json& metadata = row.at("metadata");
  if (!metadata.is_object()) {
    return WrongType(context, "metadata", "an object", metadata);
  }
  return &metadata;
}

// Parses each non-blank line of a JSON-lines file into an object and hands
// it to `parse_row`, rejecting repeated ids. `Row` has an `id` member.
template <typename Row, typename ParseRow>
Result<std::vector<Row>> ParseJsonLines(std::string_view text, const std::filesystem::path& source,
                                        std::string_view operation, ParseRow parse_row) {
  std::vector<Row> rows;
  std::unordered_set<std::string> ids;
  const std::vector<std::string_view> lines = SplitLines(text);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (TrimSpaces(lines[i]).empty()) continue;
    const LineContext context(operation, source, i + 1);
    Result<json> parsed_line = ParseJson(lines[i], "");
    if (!parsed_line.ok()) return context.Error(parsed_line.status().message());
    const json row = std::move(parsed_line).value();
    if (!row.is_object()) {
      return context.Error(std::string("want a JSON object, got ") + row.type_name());
    }
    ENGRAM_ASSIGN_OR_RETURN(Row parsed, parse_row(context, row));
    if (!ids.insert(parsed.id).second) {
      return context.Error("\"_id\" \"" + parsed.id + "\" repeats an earlier row");
    }
    rows.push_back(std::move(parsed));
  }
  return rows;
}

Result<CorpusDoc> ParseCorpusRow(const LineContext& context, const json& row) {
  CorpusDoc doc;
  ENGRAM_ASSIGN_OR_RETURN(doc.id, ReadId(context, row));
  ENGRAM_ASSIGN_OR_RETURN(doc.text, ReadText(context, row));
  ENGRAM_RETURN_IF_ERROR(ReadString(context, row, "title", &doc.title));
  ENGRAM_ASSIGN_OR_RETURN(const json* metadata, ReadMetadata(context, row));
  if (metadata == nullptr) return doc;
  ENGRAM_RETURN_IF_ERROR(ReadScope(context, *metadata, &doc.scope));
  ENGRAM_RETURN_IF_ERROR(ReadTags(context, *metadata, &doc.tags));
  if (!IsAbsent(*metadata, "created_at")) {
    const json& value = metadata->at("created_at");
    if (!value.is_string()) {
      return WrongType(context, "metadata.created_at", "an ISO-8601 string", value);
    }
    Result<Timestamp> created_at = ParseIso8601(value.get<std::string>());
    if (!created_at.ok()) {
      return context.Error("\"metadata.created_at\": " + created_at.status().message());
    }
    doc.created_at = *created_at;
  }
  return doc;
}

Result<EvalQuery> ParseQueryRow(const LineContext& context, const json& row) {
  EvalQuery query;
  ENGRAM_ASSIGN_OR_RETURN(query.id, ReadId(context, row));
  ENGRAM_ASSIGN_OR_RETURN(query.text, ReadText(context, row));
  ENGRAM_ASSIGN_OR_RETURN(const json* metadata, ReadMetadata(context, row));
  if (metadata == nullptr) return query;
  ENGRAM_RETURN_IF_ERROR(ReadScope(context, *metadata, &query.scope));
  ENGRAM_RETURN_IF_ERROR(ReadTags(context, *metadata, &query.tags));
  return query;
}

}  // namespace

Result<std::vector<CorpusDoc>> ParseBeirCorpus(std::string_view text,
                                               const std::filesystem::path& source) {
  return ParseJsonLines<CorpusDoc>(text, source, "load corpus", ParseCorpusRow);
}

Result<std::vector<EvalQuery>> ParseBeirQueries(std::string_view text,
                                                const std::filesystem::path& source) {
  return ParseJsonLines<EvalQuery>(text, source, "load queries", ParseQueryRow);
}

Result<BeirDataset> LoadBeirDataset(const std::filesystem::path& dir,
                                    const BeirLoadOptions& options) {
  BeirDataset dataset;
  std::filesystem::path normal = dir.lexically_normal();
  if (!normal.has_filename()) normal = normal.parent_path();
  dataset.name = normal.filename().string();

  const std::filesystem::path corpus_path = dir / "corpus.jsonl";
  ENGRAM_ASSIGN_OR_RETURN(std::string corpus_text, ReadTextFile(corpus_path, "load corpus"));
  ENGRAM_ASSIGN_OR_RETURN(dataset.corpus, ParseBeirCorpus(corpus_text, corpus_path));

  const std::filesystem::path queries_path = dir / "queries.jsonl";
  ENGRAM_ASSIGN_OR_RETURN(std::string queries_text, ReadTextFile(queries_path, "load queries"));
  ENGRAM_ASSIGN_OR_RETURN(dataset.queries, ParseBeirQueries(queries_text, queries_path));

  ENGRAM_ASSIGN_OR_RETURN(dataset.qrels,
                          LoadBeirQrels(dir / "qrels" / (options.qrels_split + ".tsv")));
  const std::filesystem::path stale_path = dir / "qrels" / "stale.tsv";
  if (std::error_code ec; std::filesystem::exists(stale_path, ec)) {
    ENGRAM_ASSIGN_OR_RETURN(dataset.stale, LoadBeirQrels(stale_path));
  }
  std::unordered_set<std::string_view> query_ids;
  for (const EvalQuery& query : dataset.queries) query_ids.insert(query.id);
  for (auto it = dataset.qrels.begin(); it != dataset.qrels.end();) {
    if (query_ids.count(it->first) != 0) {
      ++it;
    } else {
      it = dataset.qrels.erase(it);
      ++dataset.num_dropped_qrels_queries;
    }
  }
  return dataset;
}

}  // namespace engram
