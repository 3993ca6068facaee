// Status and Result<T>: the error type at every module boundary.
//
// A Status is either OK or carries a code and a message that reads
// "module: operation: cause". Messages never contain secrets. A Status that
// is dropped without a look is a bug, so both types are [[nodiscard]]; to
// ignore one on purpose, call IgnoreError() and say why beside it.
//
// Thread-safety: values; safe to copy between threads.
#ifndef ENGRAM_STATUS_H_
#define ENGRAM_STATUS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "engram/export.h"

namespace engram {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // bad input from the caller (a usage or data error)
  kNotFound,            // the named thing does not exist
  kAlreadyExists,       // a unique thing was created twice
  kFailedPrecondition,  // the system is not in a state to do this
  kIOError,             // the filesystem or database failed
  kCorruption,          // stored data is not what we wrote
  kUnavailable,         // a remote service failed; may be retried
  kDeadlineExceeded,    // a remote call ran out of time
  kNotSupported,        // the feature or version is not supported
  kCancelled,           // the caller asked to stop
  kInternal,            // a bug: an invariant did not hold
};

// Returns a stable lower-case name for `code`, e.g. "invalid_argument".
ENGRAM_EXPORT std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] ENGRAM_EXPORT Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status OK() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // True when the same call may succeed if tried again (network, busy).
  bool retryable() const { return code_ == StatusCode::kUnavailable; }

  // "invalid_argument: store: add: empty content" or "ok".
  std::string ToString() const;

  // Returns a copy whose message is "context: <message>".
  Status WithContext(std::string_view context) const;

  // Marks a Status as deliberately ignored.
  void IgnoreError() const {}

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
inline Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status FailedPrecondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
inline Status IOError(std::string m) { return {StatusCode::kIOError, std::move(m)}; }
inline Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
inline Status Unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status DeadlineExceeded(std::string m) {
  return {StatusCode::kDeadlineExceeded, std::move(m)};
}
inline Status NotSupported(std::string m) { return {StatusCode::kNotSupported, std::move(m)}; }
inline Status Cancelled(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT(runtime/explicit)
  // An OK status carries no value: it becomes an Internal error, so a bug
  // never reads as success.
  Result(Status status)  // NOLINT(runtime/explicit)
      : data_(status.ok() ? Internal("Result built from an OK status") : std::move(status)) {}

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status::OK() : std::get<Status>(data_); }

  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  // The value, or `fallback` when there is none.
  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }
  T value_or(T fallback) && { return ok() ? std::move(*this).value() : std::move(fallback); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace engram

// Returns from the enclosing function when `expr` yields a non-OK Status.
#define ENGRAM_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::engram::Status engram_status_ = (expr);        \
    if (!engram_status_.ok()) return engram_status_; \
  } while (0)

#define ENGRAM_CONCAT_INNER_(a, b) a##b
#define ENGRAM_CONCAT_(a, b) ENGRAM_CONCAT_INNER_(a, b)

// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` is a declaration.
// `ENGRAM_ASSIGN_OR_RETURN(auto x, MakeX());` declares x from a Result or
// returns its Status.
#define ENGRAM_ASSIGN_OR_RETURN(lhs, expr) \
  ENGRAM_ASSIGN_OR_RETURN_IMPL_(ENGRAM_CONCAT_(engram_result_, __LINE__), lhs, expr)
#define ENGRAM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#endif  // ENGRAM_STATUS_H_
