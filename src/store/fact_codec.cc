#include "src/store/fact_codec.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/common/time_format.h"
#include "src/common/utf8.h"

namespace engram {
namespace {

using nlohmann::json;

std::string TypeName(const json& v) { return v.type_name(); }

Status WrongType(const std::string& key, const char* want, const json& v) {
  return InvalidArgument("field '" + key + "' must be " + want + ", not " + TypeName(v));
}

Result<Timestamp> ParseTime(const std::string& key, const json& v) {
  if (!v.is_string()) return WrongType(key, "an ISO-8601 string", v);
  auto t = ParseIso8601(v.get<std::string>());
  if (!t.ok()) return InvalidArgument("field '" + key + "': " + t.status().message());
  return *t;
}

Status ApplyField(const std::string& key, const json& v, NewFact* f) {
  if (key == "content" || key == "text") {
    if (!v.is_string()) return WrongType(key, "a string", v);
    f->content = v.get<std::string>();
  } else if (key == "scope" || key == "kind" || key == "source" || key == "id") {
    if (!v.is_string()) return WrongType(key, "a string", v);
    std::string* target = key == "scope"    ? &f->scope
                          : key == "kind"   ? &f->kind
                          : key == "source" ? &f->source
                                            : &f->id.emplace();
    *target = v.get<std::string>();
  } else if (key == "tags") {
    if (!v.is_array()) return WrongType(key, "an array of strings", v);
    f->tags.clear();
    for (const auto& t : v) {
      if (!t.is_string()) return WrongType("tags[]", "a string", t);
      f->tags.push_back(t.get<std::string>());
    }
  } else if (key == "confidence") {
    if (!v.is_number()) return WrongType(key, "a number", v);
    f->confidence = v.get<double>();
  } else if (key == "metadata") {
    if (!v.is_object()) return WrongType(key, "an object", v);
    f->metadata = DumpJson(v);
  } else if (key == "access_count") {
    if (!v.is_number_integer()) return WrongType(key, "an integer", v);
    f->access_count = v.get<int64_t>();
  } else if (key == "superseded_by") {
    if (v.is_null()) return Status::OK();
    if (!v.is_string()) return WrongType(key, "a fact id or null", v);
    f->superseded_by = v.get<std::string>();
  } else if (key == "valid_until" || key == "expires_at") {
    if (v.is_null()) return Status::OK();
    ENGRAM_ASSIGN_OR_RETURN(Timestamp t, ParseTime(key, v));
    (key == "valid_until" ? f->valid_until : f->expires_at) = t;
  } else if (key == "created_at" || key == "updated_at" || key == "last_accessed") {
    ENGRAM_ASSIGN_OR_RETURN(Timestamp t, ParseTime(key, v));
    if (key == "created_at") f->created_at = t;
    if (key == "updated_at") f->updated_at = t;
    if (key == "last_accessed") f->last_accessed = t;
  } else {
    return InvalidArgument("unknown field '" + key + "'");
  }
  return Status::OK();
}

}  // namespace

std::string FactToJsonLine(const Fact& f) { return DumpJson(FactToJson(f)); }

json FactToJson(const Fact& f) {
  json j = json::object();
  j["id"] = f.id;
  j["scope"] = f.scope;
  j["content"] = f.content;
  j["tags"] = f.tags;
  j["kind"] = f.kind;
  j["source"] = f.source;
  j["created_at"] = FormatIso8601(f.created_at);
  j["updated_at"] = FormatIso8601(f.updated_at);
  j["last_accessed"] = FormatIso8601(f.last_accessed);
  j["access_count"] = f.access_count;
  j["confidence"] = f.confidence;
  auto metadata = ParseJson(f.metadata, "");
  j["metadata"] = metadata.ok() && metadata->is_object() ? std::move(*metadata) : json::object();
  j["superseded_by"] = f.superseded_by.empty() ? json(nullptr) : json(f.superseded_by);
  j["valid_until"] = f.valid_until == 0 ? json(nullptr) : json(FormatIso8601(f.valid_until));
  j["expires_at"] = f.expires_at == 0 ? json(nullptr) : json(FormatIso8601(f.expires_at));
  return j;
}

Result<NewFact> ParseFactJson(std::string_view text) {
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    return InvalidArgument("invalid UTF-8 at byte " + std::to_string(bad + 1));
  }
  ENGRAM_ASSIGN_OR_RETURN(json j, ParseJson(text, ""));
  return ParseFactObject(j);
}

Result<NewFact> ParseFactObject(const json& j) {
  if (!j.is_object()) return InvalidArgument("expected a JSON object, got " + TypeName(j));
  NewFact fact;
  bool has_content = false;
  for (const auto& [key, value] : j.items()) {
    ENGRAM_RETURN_IF_ERROR(ApplyField(key, value, &fact));
    has_content |= key == "content" || key == "text";
  }
  if (!has_content) return InvalidArgument("missing field 'content'");
  return fact;
}

void ReadFactsJsonl(std::istream& in, const std::function<void(ParsedRecord)>& sink) {
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    sink(ParsedRecord{number, ParseFactJson(line)});
  }
}

namespace {

// A UTF-8 byte-order mark at the start of a file is dropped, as the JSON
// reader does.
void StripUtf8Bom(std::string* first_field) {
  if (first_field->rfind("\xEF\xBB\xBF", 0) == 0) first_field->erase(0, 3);
}

// The header names each column once and has a content column.
Status CheckCsvHeader(const std::vector<std::string>& header) {
  bool has_content = false;
  for (size_t i = 0; i < header.size(); ++i) {
    if (size_t bad = 0; !IsValidUtf8(header[i], &bad)) {
      return InvalidArgument("CSV header column " + std::to_string(i + 1) +
                             ": invalid UTF-8 at byte " + std::to_string(bad + 1));
    }
    if (std::find(header.begin(), header.begin() + static_cast<std::ptrdiff_t>(i), header[i]) !=
        header.begin() + static_cast<std::ptrdiff_t>(i)) {
      return InvalidArgument("CSV header names column '" + header[i] + "' twice");
    }
    has_content |= header[i] == "content" || header[i] == "text";
  }
  if (!has_content) return InvalidArgument("CSV header has no 'content' column");
  return Status::OK();
}

// One CSV record as the JSON object a JSONL line would hold: tags split
// at ';', numbers and metadata parsed as JSON, everything else a string.
Result<json> CsvRecordToJson(const std::vector<std::string>& header,
                             const std::vector<std::string>& fields) {
  json j = json::object();
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& key = header[i];
    const std::string& value = fields[i];
    if (size_t bad = 0; !IsValidUtf8(value, &bad)) {
      return InvalidArgument("field '" + key + "': invalid UTF-8 at byte " +
                             std::to_string(bad + 1));
    }
    if (value.empty() && key != "content" && key != "text") continue;
    if (key == "tags") {
      json tags = json::array();
      size_t pos = 0;
      while (pos <= value.size()) {
        size_t end = value.find(';', pos);
        if (end == std::string::npos) end = value.size();
        std::string tag = value.substr(pos, end - pos);
        if (!tag.empty()) tags.push_back(tag);
        pos = end + 1;
      }
      j[key] = tags;
    } else if (key == "confidence" || key == "access_count" || key == "metadata") {
      ENGRAM_ASSIGN_OR_RETURN(j[key], ParseJson(value, "field '" + key + "'"));
      if (key != "metadata" && !j[key].is_number()) {
        std::string why = "field '" + key + "' must be a number, not '";
        why += value;
        why += "'";
        return InvalidArgument(std::move(why));
      }
    } else {
      j[key] = value;
    }
  }
  return j;
}

// Reads one CSV record; returns false at end of input. `*line` advances by
// the newlines consumed.
bool ReadCsvRecord(std::istream& in, std::vector<std::string>* fields, size_t* line,
                   bool* unterminated) {
  fields->clear();
  *unterminated = false;
  std::string field;
  bool quoted = false;
  bool any = false;
  int c;
  while ((c = in.get()) != EOF) {
    any = true;
    if (quoted) {
      if (c == '"') {
        if (in.peek() == '"') {
          in.get();
          field.push_back('"');
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++*line;
        field.push_back(static_cast<char>(c));
      }
    } else if (c == '"' && field.empty()) {
      quoted = true;
    } else if (c == ',') {
      fields->push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      ++*line;
      break;
    } else if (c != '\r') {
      field.push_back(static_cast<char>(c));
    }
  }
  if (!any) return false;
  *unterminated = quoted;
  fields->push_back(std::move(field));
  return true;
}

}  // namespace

void ReadFactsCsv(std::istream& in, const std::function<void(ParsedRecord)>& sink) {
  std::vector<std::string> header;
  std::vector<std::string> fields;
  size_t line = 0;
  bool unterminated = false;
  // Header.
  while (true) {
    const size_t start = line + 1;
    if (!ReadCsvRecord(in, &header, &line, &unterminated)) {
      sink(ParsedRecord{1, InvalidArgument("empty CSV: expected a header line")});
      return;
    }
    if (start == 1) StripUtf8Bom(&header[0]);
    if (header.size() == 1 && header[0].empty()) continue;  // blank line
    if (Status bad = CheckCsvHeader(header); !bad.ok()) {
      sink(ParsedRecord{start, std::move(bad)});
      return;
    }
    break;
  }
  while (true) {
    const size_t start = line + 1;
    if (!ReadCsvRecord(in, &fields, &line, &unterminated)) break;
    if (fields.size() == 1 && fields[0].empty()) continue;
    if (unterminated) {
      sink(ParsedRecord{start, InvalidArgument("unterminated quoted field")});
      break;
    }
    if (fields.size() != header.size()) {
      sink(ParsedRecord{start, InvalidArgument("expected " + std::to_string(header.size()) +
                                               " fields, found " + std::to_string(fields.size()))});
      continue;
    }
    Result<json> record = CsvRecordToJson(header, fields);
    sink(ParsedRecord{start, record.ok() ? ParseFactObject(*record) : record.status()});
  }
}

}  // namespace engram
