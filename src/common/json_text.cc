#include "src/common/json_text.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace engram {
namespace {

using nlohmann::json;

// True for a number literal with no fraction and no exponent: the lexer
// hands such a literal over as a double only when it overflows 64 bits.
bool IsIntegerLiteral(const std::string& raw) {
  return raw.find_first_of(".eE") == std::string::npos;
}

// Builds the parsed value from the parser's events (nlohmann's SAX
// interface), refusing what ParseJson's contract refuses. The parser is
// iterative; this builder keeps its own stack of open containers.
// NOLINTBEGIN(readability-identifier-naming): the SAX interface's names.
class StrictBuilder {
 public:
  explicit StrictBuilder(const JsonLimits& limits) : limits_(limits) {}

  bool null() { return Put(nullptr); }
  bool boolean(bool v) { return Put(v); }
  bool number_integer(json::number_integer_t v) { return Put(v); }
  bool number_unsigned(json::number_unsigned_t v) { return Put(v); }
  bool number_float(json::number_float_t v, const json::string_t& raw) {
    if (IsIntegerLiteral(raw)) return Fail("integer " + raw + " is outside the 64-bit range");
    return Put(v);
  }
  bool string(json::string_t& v) { return Put(std::move(v)); }
  bool binary(json::binary_t& v) { return Put(json::binary(std::move(v))); }
  bool start_object(std::size_t /*elements*/) { return Open(json::object()); }
  bool start_array(std::size_t /*elements*/) { return Open(json::array()); }
  bool key(json::string_t& k) {
    if (open_.back().value->contains(k)) return Fail("key \"" + k + "\" appears twice");
    open_.back().key = std::move(k);
    return true;
  }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& e) {
    // e.id 406 is a number that does not fit a double; the others are
    // syntax (101) and unexpected end (101 as well, at the end).
    error_ = (e.id == 406 ? std::string("number out of range") : std::string("malformed JSON")) +
             " at byte " + std::to_string(position);
    return false;
  }

  json TakeRoot() { return std::move(root_); }
  const std::optional<std::string>& error() const { return error_; }

 private:
  struct OpenContainer {
    json* value = nullptr;
    std::string key;  // of the member being read, in an object
  };

  // The path of what is being read, e.g. $.metadata.tags[3].
  std::string Path() const {
    std::string path = "$";
    for (size_t i = 0; i < open_.size(); ++i) {
      const OpenContainer& c = open_[i];
      if (c.value->is_object()) {
        path += "." + c.key;
      } else {
        // An outer array already holds the element being read; the
        // innermost one does not yet.
        const size_t index = c.value->size() - (i + 1 < open_.size() ? 1 : 0);
        path += "[" + std::to_string(index) + "]";
      }
    }
    return path;
  }

  bool Fail(std::string why) {
    error_ = std::move(why) + " at " + Path();
    return false;
  }

  // Places `v` where the parser is and returns where it went.
  json* Place(json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json& parent = *open_.back().value;
    if (parent.is_array()) {
      parent.push_back(std::move(v));
      return &parent.back();
    }
    json& slot = parent[open_.back().key];
    slot = std::move(v);
    return &slot;
  }

  bool Put(json v) {
    Place(std::move(v));
    return true;
  }

  bool Open(json container) {
    if (open_.size() + 1 > limits_.max_depth) {
      return Fail("nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    }
    // A pointer into the parent stays valid: nothing is added to the
    // parent until this container is closed.
    open_.push_back(OpenContainer{Place(std::move(container)), {}});
    return true;
  }

  bool Close() {
    open_.pop_back();
    return true;
  }

  const JsonLimits& limits_;
  json root_;
  std::vector<OpenContainer> open_;
  std::optional<std::string> error_;
};
// NOLINTEND(readability-identifier-naming)

}  // namespace

Result<json> ParseJson(std::string_view text, std::string_view what, const JsonLimits& limits) {
  StrictBuilder builder(limits);
  const bool ok = json::sax_parse(text, &builder);
  if (!ok || builder.error()) {
    std::string message = what.empty() ? std::string() : std::string(what) + ": ";
    message += builder.error().value_or(std::string("malformed JSON"));
    return InvalidArgument(std::move(message));
  }
  return builder.TakeRoot();
}

namespace {

// The value of the 4 hex digits at text[at..at+4), or -1.
int HexQuad(std::string_view text, size_t at) {
  if (at + 4 > text.size()) return -1;
  int value = 0;
  for (size_t i = at; i < at + 4; ++i) {
    const char c = text[i];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

bool IsHigh(int unit) { return unit >= 0xD800 && unit <= 0xDBFF; }
bool IsLow(int unit) { return unit >= 0xDC00 && unit <= 0xDFFF; }

}  // namespace

std::string ReplaceLoneSurrogateEscapes(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (!in_string) {
      in_string = c == '"';
      out += c;
      ++i;
      continue;
    }
    if (c == '"') in_string = false;
    if (c != '\\' || i + 1 >= text.size()) {
      out += c;
      ++i;
      continue;
    }
    if (text[i + 1] != 'u') {  // another escape: copied whole
      out.append(text.substr(i, 2));
      i += 2;
      continue;
    }
    const int unit = HexQuad(text, i + 2);
    const bool paired = IsHigh(unit) && i + 7 < text.size() && text[i + 6] == '\\' &&
                        text[i + 7] == 'u' && IsLow(HexQuad(text, i + 8));
    if (paired) {
      out.append(text.substr(i, 12));
      i += 12;
    } else if (IsHigh(unit) || IsLow(unit)) {
      out += "\\uFFFD";
      i += 6;
    } else {
      out.append(text.substr(i, 2));  // \u and the rest, as they are
      i += 2;
    }
  }
  return out;
}

std::string DumpJson(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace engram
