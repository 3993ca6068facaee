// How the CLI shows facts to a person: one line per fact in lists, a block
// for `show`. Machine output uses FactToJsonLine (src/store/fact_codec.h).
#ifndef ENGRAM_TOOLS_ENGRAM_FACT_PRINTER_H_
#define ENGRAM_TOOLS_ENGRAM_FACT_PRINTER_H_

#include <ostream>
#include <string>

#include "engram/fact.h"

namespace engram::cli {

// "3f2a1b9c0d1e  [preference] Prefers Neovim...  #editor #tools"
void PrintFactLine(std::ostream& out, const Fact& fact);

// Every field, one per line.
void PrintFactDetail(std::ostream& out, const Fact& fact);

// At most `max_chars` code points of `text` on one line, "..." when cut.
std::string OneLine(const std::string& text, size_t max_chars);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_FACT_PRINTER_H_
