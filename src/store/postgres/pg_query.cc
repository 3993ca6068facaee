#include "src/store/postgres/pg_query.h"

#include <charconv>
#include <string>
#include <system_error>
#include <utility>

namespace engram {

std::string PgQuery::Param(PgParam param) {
  params_.push_back(std::move(param));
  return "$" + std::to_string(params_.size());
}

PgParam TextArray(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (const char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  out += '}';
  return PgParam::Text(out);
}

PgParam FloatsParam(std::span<const float> floats) {
  return PgParam::Bytes({reinterpret_cast<const char*>(floats.data()), floats.size_bytes()});
}

PgParam IntArray(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(values[i]);
  }
  out += '}';
  return PgParam::Text(out);
}

std::vector<std::string> TextColumn(const PgResult& r, int column) {
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) out.emplace_back(r.Text(i, column));
  return out;
}

Result<std::vector<std::string>> ParseTextArray(std::string_view text) {
  const auto bad = [&] {
    return InvalidArgument("store: postgres: '" + std::string(text) + "' is not a text array");
  };
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return bad();
  std::vector<std::string> out;
  size_t i = 1;
  const size_t end = text.size() - 1;
  if (i == end) return out;
  while (true) {
    std::string element;
    if (text[i] == '"') {
      // Quoted: up to the closing quote, a backslash escaping the next byte.
      for (++i; i < end && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;
        if (i < end) element += text[i];
      }
      if (i >= end) return bad();
      ++i;
    } else {
      const size_t start = i;
      while (i < end && text[i] != ',') ++i;
      element.assign(text.substr(start, i - start));
      if (element.empty() || element == "NULL") return bad();
    }
    out.push_back(std::move(element));
    if (i == end) return out;
    if (text[i] != ',') return bad();
    ++i;
  }
}

Result<std::vector<int64_t>> ParseIntArray(std::string_view text) {
  const auto bad = [&] {
    return InvalidArgument("store: postgres: '" + std::string(text) + "' is not an integer array");
  };
  if (text.size() < 2 || text.front() != '{' || text.back() != '}') return bad();
  text = text.substr(1, text.size() - 2);
  std::vector<int64_t> out;
  while (!text.empty()) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc()) return bad();
    out.push_back(value);
    text.remove_prefix(static_cast<size_t>(end - text.data()));
    if (!text.empty()) {
      if (text.front() != ',') return bad();
      text.remove_prefix(1);
      if (text.empty()) return bad();
    }
  }
  return out;
}

}  // namespace engram
