// JSON text in and out, strictly (docs/ARCHITECTURE.md, "Input that is
// refused"). Every JSON that comes from outside the process (HTTP bodies,
// MCP frames, import rows, settings and model files, rows read back from
// the store) is parsed here, so one set of rules holds everywhere.
//
// ParseJson refuses, with an InvalidArgument naming `what` (when not empty)
// and where:
//  - malformed text, and invalid UTF-8 in a string (at byte N, counted
//    from 1: the last byte read, one past the end for text cut short);
//  - a number outside the range of a double, e.g. 1e999 (at byte N, the
//    number's last);
//  - an integer literal outside the 64-bit range, which would otherwise
//    be read silently as an inexact double (at its path, e.g. $.a[2]);
//  - nesting deeper than `JsonLimits::max_depth`, checked as each object or
//    array opens, before anything below it is built;
//  - a key repeated in one object (not last-wins).
// The parser itself does not recurse, so no input can exhaust the stack.
//
// DumpJson never throws: invalid UTF-8 in a string value comes out as
// U+FFFD. Thread-safe: pure functions.
#ifndef ENGRAM_SRC_COMMON_JSON_TEXT_H_
#define ENGRAM_SRC_COMMON_JSON_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "engram/status.h"

namespace engram {

struct JsonLimits {
  // Deepest nesting of objects and arrays accepted; the top-level value is
  // depth 1. Default 64: far above what a fact, a request or a settings
  // file needs, far below what could exhaust the stack of a recursive
  // consumer (dump, destruction) of the parsed value.
  size_t max_depth = 64;
};

// Parses one JSON value (surrounding white space allowed, nothing else).
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what,
                                 const JsonLimits& limits = {});

// `text` with every lone UTF-16 surrogate escape in a string (a \uD83D not
// followed by its low half, or a low half alone) written as \uFFFD, the
// replacement character, so that a client that cut an emoji in half gets
// its message read instead of refused. Everything else is left as it is.
std::string ReplaceLoneSurrogateEscapes(std::string_view text);

// Compact text of `value`.
std::string DumpJson(const nlohmann::json& value);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_JSON_TEXT_H_
