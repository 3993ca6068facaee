#include "src/http/sigv4_signer.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "src/common/hash.h"
#include "src/common/time_format.h"

namespace engram {
namespace {

constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";

// Headers that hops or tracers may change on the way: never signed.
constexpr std::string_view kUnsignedHeaders[] = {
    "authorization", "connection", "expect", "transfer-encoding", "user-agent", "x-amzn-trace-id",
};

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Trimmed, every inner run of whitespace (folded lines too) one space.
std::string CanonicalHeaderValue(std::string_view value) {
  value = Trim(value);
  std::string out;
  out.reserve(value.size());
  bool in_space = false;
  for (char c : value) {
    if (IsSpace(c)) {
      in_space = true;
      continue;
    }
    if (in_space) out.push_back(' ');
    in_space = false;
    out.push_back(c);
  }
  return out;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX sequences decoded; a '%' not followed by two hex digits kept as is.
std::string PercentDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexValue(s[i + 1]) >= 0 && HexValue(s[i + 2]) >= 0) {
      out.push_back(static_cast<char>(HexValue(s[i + 1]) * 16 + HexValue(s[i + 2])));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string Hex(const unsigned char* bytes, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kDigits[bytes[i] >> 4]);
    out.push_back(kDigits[bytes[i] & 0xF]);
  }
  return out;
}

// The raw HMAC-SHA256 of `data` under `key` (32 bytes).
std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &length);
  return {reinterpret_cast<const char*>(digest), length};
}

bool IsSigned(std::string_view lower_name) {
  return std::find(std::begin(kUnsignedHeaders), std::end(kUnsignedHeaders), lower_name) ==
         std::end(kUnsignedHeaders);
}

// The lower-case names of the headers to sign, sorted, without repeats.
std::vector<std::string> SignedHeaderNames(const HttpHeaders& headers) {
  std::vector<std::string> names;
  for (const auto& [name, value] : headers) {
    std::string lower = Lower(Trim(name));
    if (IsSigned(lower)) names.push_back(std::move(lower));
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out.push_back(';');
    out += name;
  }
  return out;
}

Status CheckInputs(const SigV4Request& request, const AwsCredentials& credentials,
                   const SigV4Params& params) {
  if (credentials.empty()) {
    return InvalidArgument("sigv4: sign: empty access key id or secret access key");
  }
  if (params.region.empty() || params.service.empty()) {
    return InvalidArgument("sigv4: sign: empty region or service");
  }
  if (!FindHeader(request.headers, "host").has_value()) {
    return InvalidArgument("sigv4: sign: the request has no Host header");
  }
  return Status::OK();
}

// Where a URL's parts are.
struct UrlParts {
  std::string host;  // with ":port" when not the scheme's default
  std::string path;  // "/" when the URL has none
  std::string query;
};

Result<UrlParts> ParseUrl(std::string_view url) {
  const size_t scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    return InvalidArgument("sigv4: parse url: no scheme (expected http:// or https://)");
  }
  const std::string scheme = Lower(url.substr(0, scheme_end));
  if (scheme != "http" && scheme != "https") {
    return InvalidArgument("sigv4: parse url: scheme '" + scheme + "' is not http or https");
  }
  std::string_view rest = url.substr(scheme_end + 3);
  const size_t fragment = rest.find('#');
  if (fragment != std::string_view::npos) rest = rest.substr(0, fragment);
  const size_t authority_end = rest.find_first_of("/?");
  std::string_view authority = rest.substr(0, authority_end);
  if (authority.empty() || authority.find('@') != std::string_view::npos ||
      authority.find_first_of(" \t\r\n") != std::string_view::npos) {
    return InvalidArgument("sigv4: parse url: empty or malformed host");
  }
  // The port follows the last ':' that is not inside an IPv6 "[...]".
  const size_t colon = authority.rfind(':');
  const size_t bracket = authority.rfind(']');
  if (colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket)) {
    const std::string_view port = authority.substr(colon + 1);
    if (port.empty() ||
        !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return InvalidArgument("sigv4: parse url: port is not a number");
    }
    if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) {
      authority = authority.substr(0, colon);
    }
  }
  UrlParts parts;
  parts.host = Lower(authority);
  const std::string_view target =
      authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  const size_t q = target.find('?');
  parts.path = std::string(target.substr(0, q));
  if (parts.path.empty()) parts.path = "/";
  if (q != std::string_view::npos) parts.query = std::string(target.substr(q + 1));
  return parts;
}

SigV4Signed Finish(const SigV4Request& request, const std::vector<std::string>& signed_headers,
                   const AwsCredentials& credentials, const SigV4Params& params,
                   std::string_view amz_date, std::string_view scope) {
  SigV4Signed out;
  out.canonical_request = SigV4CanonicalRequest(request, signed_headers, params.normalize_path,
                                                Sha256Hex(request.body));
  out.string_to_sign = SigV4StringToSign(amz_date, scope, out.canonical_request);
  out.signature = SigV4Signature(credentials.secret_access_key, amz_date, params.region,
                                 params.service, out.string_to_sign);
  return out;
}

}  // namespace

std::string SigV4AmzDate(Timestamp now) {
  // "2015-08-30T12:36:00.000Z" -> "20150830T123600Z".
  const std::string iso = FormatIso8601(now);
  std::string out;
  for (char c : iso.substr(0, 19)) {
    if (c != '-' && c != ':') out.push_back(c);
  }
  out.push_back('Z');
  return out;
}

std::string SigV4Scope(std::string_view amz_date, std::string_view region,
                       std::string_view service) {
  std::string scope(amz_date.substr(0, 8));
  scope += '/';
  scope += region;
  scope += '/';
  scope += service;
  scope += "/aws4_request";
  return scope;
}

std::string SigV4UriEncode(std::string_view bytes, bool keep_slash) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size());
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (keep_slash && c == '/')) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kDigits[u >> 4]);
      out.push_back(kDigits[u & 0xF]);
    }
  }
  return out;
}

std::string SigV4CanonicalUri(std::string_view path, bool normalize) {
  if (path.empty()) return "/";
  if (!normalize) return SigV4UriEncode(path, /*keep_slash=*/true);
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    start = end + 1;
  }
  std::string out = "/";
  for (size_t i = 0; i < segments.size(); ++i) {
    if (i > 0) out.push_back('/');
    out += SigV4UriEncode(segments[i], /*keep_slash=*/false);
  }
  if (!segments.empty() && path.back() == '/') out.push_back('/');
  return out;
}

std::string SigV4CanonicalQuery(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> params;
  size_t start = 0;
  while (start < query.size()) {
    size_t end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    const std::string_view pair = query.substr(start, end - start);
    if (!pair.empty()) {
      const size_t eq = pair.find('=');
      const std::string_view name = pair.substr(0, eq);
      const std::string_view value =
          eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1);
      params.emplace_back(SigV4UriEncode(PercentDecode(name), false),
                          SigV4UriEncode(PercentDecode(value), false));
    }
    start = end + 1;
  }
  std::sort(params.begin(), params.end());
  std::string out;
  for (const auto& [name, value] : params) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string SigV4CanonicalRequest(const SigV4Request& request,
                                  const std::vector<std::string>& signed_headers,
                                  bool normalize_path, std::string_view payload_hash) {
  std::string out = request.method;
  out.push_back('\n');
  out += SigV4CanonicalUri(request.path, normalize_path);
  out.push_back('\n');
  out += SigV4CanonicalQuery(request.query);
  out.push_back('\n');
  for (const std::string& name : signed_headers) {
    std::string values;
    bool first = true;
    for (const auto& [header, value] : request.headers) {
      if (!EqualsIgnoreCase(Trim(header), name)) continue;
      if (!first) values.push_back(',');
      first = false;
      values += CanonicalHeaderValue(value);
    }
    out += name;
    out.push_back(':');
    out += values;
    out.push_back('\n');
  }
  out.push_back('\n');
  out += JoinNames(signed_headers);
  out.push_back('\n');
  out += payload_hash;
  return out;
}

std::string SigV4StringToSign(std::string_view amz_date, std::string_view scope,
                              std::string_view canonical_request) {
  std::string out(kAlgorithm);
  out.push_back('\n');
  out += amz_date;
  out.push_back('\n');
  out += scope;
  out.push_back('\n');
  out += Sha256Hex(canonical_request);
  return out;
}

std::string SigV4Signature(std::string_view secret_access_key, std::string_view amz_date,
                           std::string_view region, std::string_view service,
                           std::string_view string_to_sign) {
  const std::string secret = "AWS4" + std::string(secret_access_key);
  const std::string date_key = HmacSha256(secret, amz_date.substr(0, 8));
  const std::string region_key = HmacSha256(date_key, region);
  const std::string service_key = HmacSha256(region_key, service);
  const std::string signing_key = HmacSha256(service_key, "aws4_request");
  const std::string signature = HmacSha256(signing_key, string_to_sign);
  return Hex(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
}

Result<SigV4Signed> SigV4SignHeaders(const SigV4Request& request, const AwsCredentials& credentials,
                                     const SigV4Params& params) {
  ENGRAM_RETURN_IF_ERROR(CheckInputs(request, credentials, params));
  const std::string amz_date = SigV4AmzDate(params.now);
  const std::string scope = SigV4Scope(amz_date, params.region, params.service);

  HttpHeaders added = {{"X-Amz-Date", amz_date}};
  const bool token = !credentials.session_token.empty();
  if (token && !params.omit_session_token) {
    added.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  if (params.sign_body) added.emplace_back("X-Amz-Content-Sha256", Sha256Hex(request.body));

  SigV4Request to_sign = request;
  to_sign.headers.insert(to_sign.headers.end(), added.begin(), added.end());
  const std::vector<std::string> names = SignedHeaderNames(to_sign.headers);
  SigV4Signed out = Finish(to_sign, names, credentials, params, amz_date, scope);

  if (token && params.omit_session_token) {
    added.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  added.emplace_back("Authorization", std::string(kAlgorithm) +
                                          " Credential=" + credentials.access_key_id + "/" + scope +
                                          ", SignedHeaders=" + JoinNames(names) +
                                          ", Signature=" + out.signature);
  out.headers = std::move(added);
  out.query = request.query;
  return out;
}

Result<SigV4Signed> SigV4PresignQuery(const SigV4Request& request,
                                      const AwsCredentials& credentials,
                                      const SigV4Params& params) {
  ENGRAM_RETURN_IF_ERROR(CheckInputs(request, credentials, params));
  const std::string amz_date = SigV4AmzDate(params.now);
  const std::string scope = SigV4Scope(amz_date, params.region, params.service);
  const std::vector<std::string> names = SignedHeaderNames(request.headers);

  std::string query = request.query;
  const auto append = [&query](std::string_view name, std::string_view value) {
    if (!query.empty()) query.push_back('&');
    query += name;
    query.push_back('=');
    query += SigV4UriEncode(value, /*keep_slash=*/false);
  };
  append("X-Amz-Algorithm", kAlgorithm);
  append("X-Amz-Credential", credentials.access_key_id + "/" + scope);
  append("X-Amz-Date", amz_date);
  append("X-Amz-SignedHeaders", JoinNames(names));
  append("X-Amz-Expires", std::to_string(params.expires_seconds));
  const bool token = !credentials.session_token.empty();
  if (token && !params.omit_session_token) {
    append("X-Amz-Security-Token", credentials.session_token);
  }

  SigV4Request to_sign = request;
  to_sign.query = query;
  SigV4Signed out = Finish(to_sign, names, credentials, params, amz_date, scope);
  if (token && params.omit_session_token) {
    append("X-Amz-Security-Token", credentials.session_token);
  }
  append("X-Amz-Signature", out.signature);
  out.query = std::move(query);
  return out;
}

Status SignRequestSigV4(HttpRequest* request, const AwsCredentials& credentials,
                        const std::string& region, const std::string& service, Timestamp now) {
  if (request == nullptr) return InvalidArgument("sigv4: sign: null request");
  ENGRAM_ASSIGN_OR_RETURN(const UrlParts url, ParseUrl(request->url));

  // Drop what an earlier signature added, so signing twice is signing once.
  std::erase_if(request->headers, [](const auto& header) {
    const std::string name = Lower(Trim(header.first));
    return name == "authorization" || name == "x-amz-date" || name == "x-amz-security-token" ||
           name == "x-amz-content-sha256";
  });

  SigV4Request to_sign;
  to_sign.method = request->method;
  to_sign.path = url.path;
  to_sign.query = url.query;
  to_sign.headers = request->headers;
  if (!FindHeader(to_sign.headers, "host").has_value()) {
    to_sign.headers.emplace_back("Host", url.host);
  }
  to_sign.body = request->body;

  SigV4Params params;
  params.region = region;
  params.service = service;
  params.now = now;
  params.sign_body = true;
  ENGRAM_ASSIGN_OR_RETURN(SigV4Signed signed_request,
                          SigV4SignHeaders(to_sign, credentials, params));
  for (auto& header : signed_request.headers) request->headers.push_back(std::move(header));
  request->secrets.push_back(signed_request.signature);
  request->secrets.push_back(credentials.secret_access_key);
  if (!credentials.session_token.empty()) request->secrets.push_back(credentials.session_token);
  return Status::OK();
}

}  // namespace engram
