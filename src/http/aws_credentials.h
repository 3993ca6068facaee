// Where AWS credentials come from, in order: the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), then the
// shared credentials file (~/.aws/credentials, or
// AWS_SHARED_CREDENTIALS_FILE) and then the shared config file
// (~/.aws/config, or AWS_CONFIG_FILE; sections "[profile NAME]", "[default]"),
// for the profile AWS_PROFILE (default "default").
//
// Only src/config reads the environment: it fills AwsCredentialSources;
// this file reads the two files.
#ifndef ENGRAM_SRC_HTTP_AWS_CREDENTIALS_H_
#define ENGRAM_SRC_HTTP_AWS_CREDENTIALS_H_

#include <optional>
#include <string>

#include "engram/remote.h"
#include "engram/status.h"

namespace engram {

struct AwsCredentialSources {
  // The environment's values; empty when unset.
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  std::string profile = "default";
  std::string credentials_file;  // path; may not exist
  std::string config_file;       // path; may not exist
};

// The credentials, from the first source that has both key id and secret.
// NotFound naming every place looked in when none has; InvalidArgument
// naming the file and line for a file that does not parse. Never echoes a
// secret.
Result<AwsCredentials> ResolveAwsCredentials(const AwsCredentialSources& sources);

// The `region` of the profile in the config file, if it sets one.
std::optional<std::string> ProfileRegion(const AwsCredentialSources& sources);

}  // namespace engram

#endif  // ENGRAM_SRC_HTTP_AWS_CREDENTIALS_H_
