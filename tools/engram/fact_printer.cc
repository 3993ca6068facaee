#include "tools/engram/fact_printer.h"

#include "src/common/time_format.h"
#include "src/common/utf8.h"

namespace engram::cli {
namespace {

// Code points a terminal acts on instead of showing: C0 and C1 controls,
// DEL, and the bidirectional overrides and isolates that reorder what
// follows them.
bool IsTerminalControl(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

// "\x1b" or "\u202e": what stands in for a control code point.
std::string Escaped(char32_t cp) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = cp < 0x100 ? "\\x" : "\\u";
  for (int shift = cp < 0x100 ? 4 : 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 0xF];
  return out;
}

}  // namespace

std::string Printable(const std::string& text, bool keep_newlines) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t start = pos;
    const char32_t cp = NextCodePoint(text, &pos);
    if (cp == '\n' && keep_newlines) {
      out += '\n';
    } else if (cp == '\t') {
      out += '\t';
    } else if (IsTerminalControl(cp)) {
      out += Escaped(cp);
    } else {
      out.append(text, start, pos - start);
    }
  }
  return out;
}

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
    } else if (IsTerminalControl(cp)) {
      out += Escaped(cp);
    } else {
      out.append(text, start, pos - start);
    }
    ++chars;
  }
  return out;
}

void PrintFactLine(std::ostream& out, const Fact& fact) {
  out << fact.id.substr(0, 12) << "  [" << OneLine(fact.kind, 64) << "] "
      << OneLine(fact.content, 100);
  for (const auto& t : fact.tags) out << "  #" << OneLine(t, 64);
  out << "\n";
}

void PrintFactDetail(std::ostream& out, const Fact& f) {
  out << "id:            " << f.id << "\n"
      << "scope:         " << Printable(f.scope, false) << "\n"
      << "kind:          " << Printable(f.kind, false) << "\n"
      << "content:       " << Printable(f.content, true) << "\n"
      << "tags:          ";
  for (size_t i = 0; i < f.tags.size(); ++i) out << (i ? ", " : "") << Printable(f.tags[i], false);
  out << "\n"
      << "source:        " << Printable(f.source, false) << "\n"
      << "confidence:    " << f.confidence << "\n"
      << "created_at:    " << FormatIso8601(f.created_at) << "\n"
      << "updated_at:    " << FormatIso8601(f.updated_at) << "\n"
      << "last_accessed: " << FormatIso8601(f.last_accessed) << "\n"
      << "access_count:  " << f.access_count << "\n"
      << "metadata:      " << Printable(f.metadata, false) << "\n";
  if (f.IsSuperseded()) {
    out << "superseded_by: " << f.superseded_by << "\n"
        << "valid_until:   " << FormatIso8601(f.valid_until) << "\n";
  }
  if (f.expires_at != 0) out << "expires_at:    " << FormatIso8601(f.expires_at) << "\n";
}

}  // namespace engram::cli
