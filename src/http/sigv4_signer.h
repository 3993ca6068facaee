// AWS Signature Version 4 (header signing and presigned query signing),
// for Bedrock. HMAC and SHA-256 come from OpenSSL.
//
// The canonical URI is the request path as sent on the wire, URI-encoded
// once more (every byte but unreserved ones and '/'), with dot segments and
// repeated slashes normalised: the rule for every service but S3. So a
// Bedrock model id with ':' travels as %3A and is signed as %253A.
//
// The canonical query is the request's parameters, each name and value
// percent-decoded and encoded again (every byte but unreserved ones), sorted
// by name and then value. The canonical headers are every header of the
// request but a few hop-by-hop and tracing ones (Authorization, Connection,
// Expect, Transfer-Encoding, User-Agent, X-Amzn-Trace-Id): names in lower
// case, values trimmed with inner runs of whitespace collapsed to one space,
// repeated headers joined by ',' in the order they came. The payload hash is
// the SHA-256 of the body.
//
// All functions are pure and thread-safe.
#ifndef ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_
#define ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_

#include <string>
#include <string_view>
#include <vector>

#include "engram/clock.h"
#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_transport.h"

namespace engram {

// Signs `request` in place for `service` in `region` at time `now`: adds
// X-Amz-Date, X-Amz-Security-Token (with a session token),
// X-Amz-Content-Sha256 and Authorization headers (Host is signed from the
// URL, with its port when that is not the scheme's default, unless the
// request carries its own Host header), and adds the signature, secret key
// and session token to request->secrets. Headers of an earlier signature
// are replaced. InvalidArgument for a URL it cannot parse or empty
// credentials.
Status SignRequestSigV4(HttpRequest* request, const AwsCredentials& credentials,
                        const std::string& region, const std::string& service, Timestamp now);

// A request as the signer sees it.
struct SigV4Request {
  std::string method = "GET";
  std::string path = "/";  // as sent on the wire, without the query
  std::string query;       // raw, without '?'; empty for none
  HttpHeaders headers;     // Host among them
  std::string body;
};

struct SigV4Params {
  std::string region;   // "us-east-1"
  std::string service;  // "bedrock"
  Timestamp now = 0;    // ms since the epoch, UTC; the signature's date
  // Remove "." and ".." segments and repeated slashes from the canonical
  // URI. Default true; false only for S3.
  bool normalize_path = true;
  // Header signing: also add and sign X-Amz-Content-Sha256. Default false.
  bool sign_body = false;
  // Add the session token after signing, unsigned (some services want
  // that). Default false: the token is signed.
  bool omit_session_token = false;
  // Query signing: X-Amz-Expires, in seconds. Default 3,600.
  int expires_seconds = 3600;
};

// A signature and every step that led to it.
struct SigV4Signed {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // 64 lower-case hex digits
  // Header signing: the headers to add to the request, Authorization last.
  // Query signing: empty.
  HttpHeaders headers;
  // Query signing: the query to send in place of the request's own (its
  // parameters, then the X-Amz-* ones, X-Amz-Signature last), without '?'.
  // Header signing: the request's query unchanged.
  std::string query;
};

// Signs with an Authorization header. InvalidArgument for empty
// credentials, region or service, or a request without a Host header.
Result<SigV4Signed> SigV4SignHeaders(const SigV4Request& request, const AwsCredentials& credentials,
                                     const SigV4Params& params);

// Presigns with X-Amz-* query parameters (no header is added or signed but
// the request's own). Errors as SigV4SignHeaders.
Result<SigV4Signed> SigV4PresignQuery(const SigV4Request& request,
                                      const AwsCredentials& credentials, const SigV4Params& params);

// The building blocks, for the tests and for a server that checks a
// signature it received.

// "20150830T123600Z" for 2015-08-30 12:36:00 UTC.
std::string SigV4AmzDate(Timestamp now);

// "20150830/us-east-1/service/aws4_request" for that `amz_date`.
std::string SigV4Scope(std::string_view amz_date, std::string_view region,
                       std::string_view service);

// `bytes` with every byte but A-Z a-z 0-9 - _ . ~ (and '/' when
// `keep_slash`) written as %XX, upper-case hex.
std::string SigV4UriEncode(std::string_view bytes, bool keep_slash);

// The canonical URI of a wire `path` (see the top of this file).
std::string SigV4CanonicalUri(std::string_view path, bool normalize);

// The canonical query string of a raw `query` (see the top of this file).
std::string SigV4CanonicalQuery(std::string_view query);

// The canonical request over the headers named in `signed_headers` (lower
// case, sorted, as in the SignedHeaders list), with `payload_hash` as its
// last line.
std::string SigV4CanonicalRequest(const SigV4Request& request,
                                  const std::vector<std::string>& signed_headers,
                                  bool normalize_path, std::string_view payload_hash);

// "AWS4-HMAC-SHA256\n<amz_date>\n<scope>\n<hex SHA-256 of canonical_request>".
std::string SigV4StringToSign(std::string_view amz_date, std::string_view scope,
                              std::string_view canonical_request);

// The hex HMAC-SHA256 of `string_to_sign` under the key derived from
// `secret_access_key`, the date part of `amz_date`, `region` and `service`.
std::string SigV4Signature(std::string_view secret_access_key, std::string_view amz_date,
                           std::string_view region, std::string_view service,
                           std::string_view string_to_sign);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_
