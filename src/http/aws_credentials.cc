#include "src/http/aws_credentials.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace engram {
namespace {

// One INI file: section name -> key (lower case) -> value.
using IniSections = std::map<std::string, std::map<std::string, std::string>>;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "[profile   work]" -> "profile work": inner whitespace runs to one space.
std::string SectionName(std::string_view inside) {
  std::string out;
  bool space = false;
  for (char c : Trim(inside)) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space) out.push_back(' ');
    space = false;
    out.push_back(c);
  }
  return out;
}

// Reads `path` as the AWS CLI does: "[section]" lines, "key = value" lines,
// whole-line comments starting with '#' or ';', and indented lines that
// continue a value (nested settings), which are skipped. Nullopt when the
// file does not exist. Errors name the file and line, never its content,
// which may be a secret.
Result<std::optional<IniSections>> ReadIni(const std::string& path) {
  if (path.empty()) return std::optional<IniSections>();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<IniSections>();
  std::ifstream in(path, std::ios::binary);
  if (!in) return IOError("aws credentials: read: cannot open " + path);
  IniSections sections;
  std::string current;  // the open section's name; empty before the first
  bool after_key = false;
  std::string line;
  int line_number = 0;
  const auto malformed = [&path, &line_number](std::string_view cause) {
    return InvalidArgument("aws credentials: parse: " + path + " line " +
                           std::to_string(line_number) + ": " + std::string(cause));
  };
  while (std::getline(in, line)) {
    ++line_number;
    const std::string_view text = Trim(line);
    if (text.empty() || text.front() == '#' || text.front() == ';') continue;
    if (std::isspace(static_cast<unsigned char>(line.front())) && after_key) continue;
    if (text.front() == '[') {
      if (text.back() != ']') return malformed("a section header without its closing ']'");
      current = SectionName(text.substr(1, text.size() - 2));
      if (current.empty()) return malformed("a section header with no name");
      sections[current];
      after_key = false;
      continue;
    }
    const size_t eq = text.find('=');
    if (eq == std::string_view::npos) {
      return malformed("expected '[section]' or 'key = value'");
    }
    const std::string key = Lower(Trim(text.substr(0, eq)));
    if (key.empty()) return malformed("a setting without a key");
    if (current.empty()) return malformed("a setting before any '[section]'");
    sections[current][key] = std::string(Trim(text.substr(eq + 1)));
    after_key = true;
  }
  return std::optional<IniSections>(std::move(sections));
}

std::string ProfileOrDefault(const AwsCredentialSources& sources) {
  return sources.profile.empty() ? std::string("default") : sources.profile;
}

// The profile's section in the config file: "[profile NAME]", or for the
// default profile "[default]" as well.
const std::map<std::string, std::string>* ConfigSection(const IniSections& sections,
                                                        const std::string& profile) {
  auto it = sections.find("profile " + profile);
  if (it == sections.end() && profile == "default") it = sections.find("default");
  return it == sections.end() ? nullptr : &it->second;
}

std::string Get(const std::map<std::string, std::string>& section, const std::string& key) {
  auto it = section.find(key);
  return it == section.end() ? std::string() : it->second;
}

// Takes the credentials of `section` when it has both keys; otherwise says
// what it lacks in `why`.
std::optional<AwsCredentials> FromSection(const std::map<std::string, std::string>& section,
                                          std::string* why) {
  AwsCredentials creds;
  creds.access_key_id = Get(section, "aws_access_key_id");
  creds.secret_access_key = Get(section, "aws_secret_access_key");
  creds.session_token = Get(section, "aws_session_token");
  if (!creds.empty()) return creds;
  *why = creds.access_key_id.empty() ? "has no aws_access_key_id" : "has no aws_secret_access_key";
  return std::nullopt;
}

}  // namespace

Result<AwsCredentials> ResolveAwsCredentials(const AwsCredentialSources& sources) {
  const std::string profile = ProfileOrDefault(sources);
  std::string looked;  // every place looked in, and why it did not do

  AwsCredentials env;
  env.access_key_id = sources.access_key_id;
  env.secret_access_key = sources.secret_access_key;
  env.session_token = sources.session_token;
  if (!env.empty()) return env;
  if (!env.access_key_id.empty()) {
    looked = "the environment (AWS_ACCESS_KEY_ID set, AWS_SECRET_ACCESS_KEY not)";
  } else if (!env.secret_access_key.empty()) {
    looked = "the environment (AWS_SECRET_ACCESS_KEY set, AWS_ACCESS_KEY_ID not)";
  } else {
    looked = "the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY unset)";
  }

  ENGRAM_ASSIGN_OR_RETURN(const std::optional<IniSections> credentials,
                          ReadIni(sources.credentials_file));
  if (!credentials.has_value()) {
    looked += sources.credentials_file.empty()
                  ? ", no credentials file"
                  : ", " + sources.credentials_file + " (does not exist)";
  } else if (auto it = credentials->find(profile); it == credentials->end()) {
    looked += ", " + sources.credentials_file + " (no [" + profile + "] section)";
  } else {
    std::string why;
    if (auto creds = FromSection(it->second, &why)) return *std::move(creds);
    looked += ", " + sources.credentials_file + " ([" + profile + "] " + why + ")";
  }

  ENGRAM_ASSIGN_OR_RETURN(const std::optional<IniSections> config, ReadIni(sources.config_file));
  const std::string config_name = profile == "default" ? "[default]" : "[profile " + profile + "]";
  if (!config.has_value()) {
    looked += sources.config_file.empty() ? ", no config file"
                                          : ", " + sources.config_file + " (does not exist)";
  } else if (const auto* section = ConfigSection(*config, profile); section == nullptr) {
    looked += ", " + sources.config_file + " (no " + config_name + " section)";
  } else {
    std::string why;
    if (auto creds = FromSection(*section, &why)) return *std::move(creds);
    looked += ", " + sources.config_file + " (" + config_name + " " + why + ")";
  }
  return NotFound("aws credentials: resolve: none for profile '" + profile + "' in " + looked);
}

std::optional<std::string> ProfileRegion(const AwsCredentialSources& sources) {
  const Result<std::optional<IniSections>> config = ReadIni(sources.config_file);
  if (!config.ok() || !config->has_value()) return std::nullopt;
  const auto* section = ConfigSection(**config, ProfileOrDefault(sources));
  if (section == nullptr) return std::nullopt;
  std::string region = Get(*section, "region");
  if (region.empty()) return std::nullopt;
  return region;
}

}  // namespace engram
