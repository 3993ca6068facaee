// How the CLI shows facts to a person: one line per fact in lists, a block
// for `show`. Machine output uses FactToJsonLine (src/store/fact_codec.h).
// A fact's text is stored as given, but what reaches a terminal never holds
// a raw control character: escape sequences, carriage returns, DEL, C1
// controls and bidirectional overrides are shown as \x1b or \u202e.
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

// `text` with every terminal control shown escaped; newlines kept when
// `keep_newlines`, tabs always.
std::string Printable(const std::string& text, bool keep_newlines);

// At most `max_chars` code points of `text` on one line, "..." when cut,
// controls escaped.
std::string OneLine(const std::string& text, size_t max_chars);

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_FACT_PRINTER_H_
