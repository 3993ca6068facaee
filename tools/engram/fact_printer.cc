#include "tools/engram/fact_printer.h"

#include "src/common/time_format.h"
#include "src/common/utf8.h"

namespace engram::cli {

std::string OneLine(const std::string& text, size_t max_chars) {
  std::string out;
  size_t pos = 0;
  size_t chars = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const char32_t cp = NextCodePoint(text, &pos);
    if (chars == max_chars) {
      out += "...";
      break;
    }
    if (cp == '\n' || cp == '\r' || cp == '\t') {
      out += ' ';
    } else {
      out.append(text, start, pos - start);
    }
    ++chars;
  }
  return out;
}

void PrintFactLine(std::ostream& out, const Fact& fact) {
  out << fact.id.substr(0, 12) << "  [" << fact.kind << "] " << OneLine(fact.content, 100);
  for (const auto& t : fact.tags) out << "  #" << t;
  out << "\n";
}

void PrintFactDetail(std::ostream& out, const Fact& f) {
  out << "id:            " << f.id << "\n"
      << "scope:         " << f.scope << "\n"
      << "kind:          " << f.kind << "\n"
      << "content:       " << f.content << "\n"
      << "tags:          ";
  for (size_t i = 0; i < f.tags.size(); ++i) out << (i ? ", " : "") << f.tags[i];
  out << "\n"
      << "source:        " << f.source << "\n"
      << "confidence:    " << f.confidence << "\n"
      << "created_at:    " << FormatIso8601(f.created_at) << "\n"
      << "updated_at:    " << FormatIso8601(f.updated_at) << "\n"
      << "last_accessed: " << FormatIso8601(f.last_accessed) << "\n"
      << "access_count:  " << f.access_count << "\n"
      << "metadata:      " << f.metadata << "\n";
}

}  // namespace engram::cli
