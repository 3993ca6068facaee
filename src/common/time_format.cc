#include "src/common/time_format.h"

#include <cstdint>
#include <cstdio>
#include <string>

namespace engram {
namespace {

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
// civil-from-days inverse, written out).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

bool ReadDigits(std::string_view s, size_t* pos, size_t count, int64_t* out) {
  if (*pos + count > s.size()) return false;
  int64_t v = 0;
  for (size_t i = 0; i < count; ++i) {
    const char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += count;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos < s.size() && s[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

}  // namespace

std::string FormatIso8601(Timestamp t) {
  int64_t days = t / 86400000;
  int64_t ms = t % 86400000;
  if (ms < 0) {
    ms += 86400000;
    --days;
  }
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(ms / 3600000),
                static_cast<long long>(ms / 60000 % 60), static_cast<long long>(ms / 1000 % 60),
                static_cast<long long>(ms % 1000));
  return buf;
}

Result<Timestamp> ParseIso8601(std::string_view s) {
  const auto bad = [&](const char* why) {
    return InvalidArgument("time: parse '" + std::string(s.substr(0, 40)) + "': " + why);
  };
  size_t p = 0;
  int64_t y, mo, d, h = 0, mi = 0, sec = 0, ms = 0;
  if (!ReadDigits(s, &p, 4, &y) || !Expect(s, &p, '-') || !ReadDigits(s, &p, 2, &mo) ||
      !Expect(s, &p, '-') || !ReadDigits(s, &p, 2, &d)) {
    return bad("expected YYYY-MM-DD");
  }
  if (mo < 1 || mo > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(mo))) {
    return bad("no such date");
  }
  if (p < s.size() && (s[p] == 'T' || s[p] == ' ')) {
    ++p;
    if (!ReadDigits(s, &p, 2, &h) || !Expect(s, &p, ':') || !ReadDigits(s, &p, 2, &mi)) {
      return bad("expected HH:MM");
    }
    if (Expect(s, &p, ':')) {
      if (!ReadDigits(s, &p, 2, &sec)) return bad("expected seconds");
      if (Expect(s, &p, '.')) {
        int64_t scale = 100;
        size_t digits = 0;
        while (p < s.size() && s[p] >= '0' && s[p] <= '9') {
          ms += (s[p] - '0') * scale;
          scale /= 10;
          ++p;
          ++digits;
        }
        if (digits == 0) return bad("expected fraction digits");
      }
    }
    if (h > 23 || mi > 59 || sec > 60) return bad("no such time");
  }
  int64_t offset_min = 0;
  if (p < s.size()) {
    if (s[p] == 'Z' || s[p] == 'z') {
      ++p;
    } else if (s[p] == '+' || s[p] == '-') {
      const int sign = s[p] == '-' ? -1 : 1;
      ++p;
      int64_t oh, om = 0;
      if (!ReadDigits(s, &p, 2, &oh)) return bad("bad UTC offset");
      Expect(s, &p, ':');
      if (p < s.size() && !ReadDigits(s, &p, 2, &om)) return bad("bad UTC offset");
      offset_min = sign * (oh * 60 + om);
    }
  }
  if (p != s.size()) return bad("trailing characters");
  const int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  return (((days * 24 + h) * 60 + mi - offset_min) * 60 + sec) * 1000 + ms;
}

Result<int64_t> ParseDuration(std::string_view text) {
  const auto bad = [&] {
    return InvalidArgument("'" + std::string(text) +
                           "' is not a duration (a whole number and s, m, h, d or w: 30d)");
  };
  if (text.size() < 2) return bad();
  int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1000;
      break;
    case 'm':
      unit = int64_t{60} * 1000;
      break;
    case 'h':
      unit = int64_t{3600} * 1000;
      break;
    case 'd':
      unit = int64_t{86400} * 1000;
      break;
    case 'w':
      unit = int64_t{7} * 86400 * 1000;
      break;
    default:
      return bad();
  }
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return bad();
    n = n * 10 + (c - '0');
    if (n > int64_t{1} << 40) return bad();  // beyond any sensible span
  }
  if (n == 0) return bad();
  return n * unit;
}

Result<Timestamp> ParseInstant(std::string_view text, Timestamp now) {
  if (auto span = ParseDuration(text); span.ok()) return now - *span;
  auto t = ParseIso8601(text);
  if (!t.ok()) {
    return InvalidArgument("'" + std::string(text) +
                           "' is neither an ISO-8601 time nor a duration ago (7d)");
  }
  return *t;
}

}  // namespace engram
