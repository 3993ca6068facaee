// RequestArgs: typed, bounded reads of one request's JSON object, for the
// HTTP API and the MCP tools alike. Every error names the request and the
// field ("search: field 'k': must be an integer in 1..1000, not string"),
// so a client can tell what to fix.
//
// Values from a URL query string arrive as text; FromQuery marks them so
// that integers and booleans may be given as "20" or "true".
// Not thread-safe; cheap to make per request.
#ifndef ENGRAM_SRC_SERVER_REQUEST_ARGS_H_
#define ENGRAM_SRC_SERVER_REQUEST_ARGS_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/status.h"

namespace engram {

class RequestArgs {
 public:
  // `what` names the request in errors. A value that is not an object is
  // an InvalidArgument error.
  static Result<RequestArgs> Of(const nlohmann::json& value, std::string what);
  // From URL query parameters (every value a string).
  static RequestArgs FromQuery(nlohmann::json params, std::string what);

  // InvalidArgument naming the first field not in `known`.
  Status OnlyFields(std::initializer_list<std::string_view> known) const;

  bool Has(std::string_view name) const;
  // A string of at most `max_bytes`; nullopt when absent or null.
  Result<std::optional<std::string>> OptionalString(std::string_view name, size_t max_bytes) const;
  // The same, required and non-blank.
  Result<std::string> RequiredString(std::string_view name, size_t max_bytes) const;
  // An integer in [lo, hi]; `fallback` when absent or null.
  Result<int64_t> Int(std::string_view name, int64_t lo, int64_t hi, int64_t fallback) const;
  Result<bool> Bool(std::string_view name, bool fallback) const;
  // A string or an array of strings, each of at most `max_bytes`, at most
  // `max_count` of them; empty when absent.
  Result<std::vector<std::string>> Strings(std::string_view name, size_t max_bytes,
                                           size_t max_count) const;

  const nlohmann::json& value() const { return value_; }
  // "what: field 'name': " + message, as InvalidArgument.
  Status FieldError(std::string_view name, const std::string& message) const;

 private:
  RequestArgs(nlohmann::json value, std::string what, bool from_query)
      : value_(std::move(value)), what_(std::move(what)), from_query_(from_query) {}
  // The field, or nullptr when absent or null.
  const nlohmann::json* Find(std::string_view name) const;

  nlohmann::json value_;
  std::string what_;
  bool from_query_ = false;
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_REQUEST_ARGS_H_
