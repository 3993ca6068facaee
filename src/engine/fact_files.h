// Facts to and from files, as `engram import` and `export` and the C API
// read and write them: JSONL (every field, round-tripping exactly) or CSV
// with a header, each record checked by the engine before anything is
// stored.
//
// Thread-safety: as the Engine given. Ownership: borrows the engine.
#ifndef ENGRAM_SRC_ENGINE_FACT_FILES_H_
#define ENGRAM_SRC_ENGINE_FACT_FILES_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/status.h"

namespace engram {

// "csv" for a name ending in .csv, else "jsonl".
std::string FactFileFormat(const std::string& path);

// The records of one input, split into those the engine would store and
// the reasons the others would not be, each as "NAME:LINE: reason".
struct FactRecords {
  std::vector<NewFact> good;
  std::vector<std::string> errors;
};

// Reads `in` as `format` ("jsonl" or "csv"); `name` is the file named in
// errors. Parses and validates (Engine::Validate); stores nothing. IOError
// when the stream fails while read.
Result<FactRecords> ReadFactRecords(const Engine& engine, std::istream& in,
                                    const std::string& format, const std::string& name);

// Writes every fact of `scopes` (all when empty), every version, as JSONL
// to `out`; returns the count. IOError naming `name` when a write fails.
Result<size_t> WriteFactsJsonl(Engine& engine, const std::vector<std::string>& scopes,
                               std::ostream& out, const std::string& name);

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_FACT_FILES_H_
