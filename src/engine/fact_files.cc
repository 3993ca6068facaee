#include "src/engine/fact_files.h"

#include "src/store/fact_codec.h"

namespace engram {

std::string FactFileFormat(const std::string& path) {
  const bool csv = path.size() >= 4 && path.compare(path.size() - 4, 4, ".csv") == 0;
  return csv ? "csv" : "jsonl";
}

Result<FactRecords> ReadFactRecords(const Engine& engine, std::istream& in,
                                    const std::string& format, const std::string& name) {
  FactRecords records;
  const auto sink = [&](ParsedRecord record) {
    Status s = record.fact.status();
    if (s.ok()) s = engine.Validate(*record.fact);
    if (s.ok()) {
      records.good.push_back(std::move(*record.fact));
    } else {
      records.errors.push_back(name + ":" + std::to_string(record.line) + ": " + s.message());
    }
  };
  if (format == "csv") {
    ReadFactsCsv(in, sink);
  } else {
    ReadFactsJsonl(in, sink);
  }
  if (in.bad()) return IOError("import: read error on '" + name + "'");
  return records;
}

Result<size_t> WriteFactsJsonl(Engine& engine, const std::vector<std::string>& scopes,
                               std::ostream& out, const std::string& name) {
  size_t count = 0;
  ENGRAM_RETURN_IF_ERROR(engine.Export(scopes, [&](const Fact& f) {
    out << FactToJsonLine(f) << "\n";
    ++count;
    return static_cast<bool>(out);
  }));
  out.flush();
  if (!out) return IOError("export: write to '" + name + "' failed");
  return count;
}

}  // namespace engram
