// AWS Signature Version 4 (header signing and presigned query signing),
// for Bedrock. HMAC and SHA-256 come from OpenSSL.
//
// The canonical URI is the request path as sent on the wire, URI-encoded
// once more (every byte but unreserved ones and '/'), with dot segments and
// repeated slashes normalised: the rule for every service but S3. So a
// Bedrock model id with ':' travels as %3A and is signed as %253A.
#ifndef ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_
#define ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_

#include <string>

#include "engram/clock.h"
#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_transport.h"

namespace engram {

// Signs `request` in place for `service` in `region` at time `now`: adds
// X-Amz-Date, X-Amz-Security-Token (with a session token),
// X-Amz-Content-Sha256 and Authorization headers (Host is signed from the
// URL), and adds the signature, secret key and session token to
// request->secrets. InvalidArgument for a URL it cannot parse or empty
// credentials.
Status SignRequestSigV4(HttpRequest* request, const AwsCredentials& credentials,
                        const std::string& region, const std::string& service, Timestamp now);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_SIGV4_SIGNER_H_
