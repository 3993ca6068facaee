#include "src/http/aws_credentials.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

namespace engram {
namespace {

namespace fs = std::filesystem;

class AwsCredentialsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("engram_aws_credentials_" +
            std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    sources_.credentials_file = (dir_ / "credentials").string();
    sources_.config_file = (dir_ / "config").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteCredentials(const std::string& text) { Write(sources_.credentials_file, text); }
  void WriteConfig(const std::string& text) { Write(sources_.config_file, text); }

  static void Write(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
  }

  fs::path dir_;
  AwsCredentialSources sources_;
};

constexpr char kCredentials[] =
    "# the default keys\n"
    "[default]\n"
    "aws_access_key_id = AKIDDEFAULT\n"
    "aws_secret_access_key = default-secret\n"
    "\n"
    "; a temporary profile\n"
    "[  work  ]\n"
    "  aws_access_key_id=AKIDWORK  \n"
    "aws_secret_access_key\t=\twork/secret+key==\r\n"
    "aws_session_token = work-token\n";

TEST_F(AwsCredentialsTest, EnvironmentWinsOverTheFiles) {
  WriteCredentials(kCredentials);
  sources_.access_key_id = "AKIDENV";
  sources_.secret_access_key = "env-secret";
  sources_.session_token = "env-token";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDENV");
  EXPECT_EQ(creds->secret_access_key, "env-secret");
  EXPECT_EQ(creds->session_token, "env-token");
}

TEST_F(AwsCredentialsTest, HalfAnEnvironmentFallsBackToTheFile) {
  WriteCredentials(kCredentials);
  sources_.access_key_id = "AKIDENV";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDDEFAULT");
}

TEST_F(AwsCredentialsTest, DefaultProfileFromTheCredentialsFile) {
  WriteCredentials(kCredentials);
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDDEFAULT");
  EXPECT_EQ(creds->secret_access_key, "default-secret");
  EXPECT_EQ(creds->session_token, "");
}

TEST_F(AwsCredentialsTest, NamedProfileWithSessionTokenAndLooseWhitespace) {
  WriteCredentials(kCredentials);
  sources_.profile = "work";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDWORK");
  EXPECT_EQ(creds->secret_access_key, "work/secret+key==");
  EXPECT_EQ(creds->session_token, "work-token");
}

TEST_F(AwsCredentialsTest, ConfigFileWhenTheCredentialsFileHasNoProfile) {
  WriteCredentials(kCredentials);
  WriteConfig(
      "[default]\n"
      "region = eu-west-1\n"
      "[profile ci]\n"
      "region = us-west-2\n"
      "s3 =\n"
      "    max_concurrent_requests = 20\n"
      "aws_access_key_id = AKIDCI\n"
      "aws_secret_access_key = ci-secret\n");
  sources_.profile = "ci";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDCI");
  EXPECT_EQ(creds->secret_access_key, "ci-secret");
}

TEST_F(AwsCredentialsTest, ConfigFileAloneWithDefaultSection) {
  WriteConfig("[default]\naws_access_key_id = AKIDCFG\naws_secret_access_key = cfg-secret\n");
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDCFG");
}

TEST_F(AwsCredentialsTest, ProfileWithoutASecretIsSkipped) {
  WriteCredentials("[work]\naws_access_key_id = AKIDHALF\n");
  WriteConfig("[profile work]\naws_access_key_id = AKIDCFG\naws_secret_access_key = s\n");
  sources_.profile = "work";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_TRUE(creds.ok()) << creds.status().ToString();
  EXPECT_EQ(creds->access_key_id, "AKIDCFG");
}

TEST_F(AwsCredentialsTest, MissingProfileNamesEveryPlaceLooked) {
  WriteCredentials(kCredentials);
  WriteConfig("[profile other]\nregion = us-east-1\n");
  sources_.profile = "absent";
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_EQ(creds.status().code(), StatusCode::kNotFound);
  const std::string message = creds.status().message();
  EXPECT_EQ(message,
            "aws credentials: resolve: none for profile 'absent' in the environment "
            "(AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY unset), " +
                sources_.credentials_file + " (no [absent] section), " + sources_.config_file +
                " (no [profile absent] section)");
}

TEST_F(AwsCredentialsTest, NoFilesAtAll) {
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_EQ(creds.status().code(), StatusCode::kNotFound);
  EXPECT_NE(creds.status().message().find(sources_.credentials_file + " (does not exist)"),
            std::string::npos);
  EXPECT_NE(creds.status().message().find(sources_.config_file + " (does not exist)"),
            std::string::npos);
}

TEST_F(AwsCredentialsTest, MalformedLineNamesFileAndLineButNotTheContent) {
  WriteCredentials(
      "[default]\n"
      "aws_access_key_id = AKIDDEFAULT\n"
      "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n");
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  ASSERT_EQ(creds.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(creds.status().message(), "aws credentials: parse: " + sources_.credentials_file +
                                          " line 3: expected '[section]' or 'key = value'");
  EXPECT_EQ(creds.status().message().find("wJalr"), std::string::npos);
}

TEST_F(AwsCredentialsTest, UnclosedSectionAndKeyBeforeSectionAreMalformed) {
  WriteCredentials("[default\n");
  EXPECT_EQ(ResolveAwsCredentials(sources_).status().code(), StatusCode::kInvalidArgument);
  WriteCredentials("aws_access_key_id = AKID\n[default]\n");
  const Result<AwsCredentials> creds = ResolveAwsCredentials(sources_);
  EXPECT_EQ(creds.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(creds.status().message().find("line 1"), std::string::npos);
}

TEST_F(AwsCredentialsTest, ProfileRegion) {
  WriteConfig(
      "[default]\n"
      "region = eu-west-1\n"
      "[profile ci]\n"
      "region = us-west-2\n"
      "[profile bare]\n"
      "output = json\n");
  EXPECT_EQ(ProfileRegion(sources_), "eu-west-1");
  sources_.profile = "ci";
  EXPECT_EQ(ProfileRegion(sources_), "us-west-2");
  sources_.profile = "bare";
  EXPECT_EQ(ProfileRegion(sources_), std::nullopt);
  sources_.profile = "absent";
  EXPECT_EQ(ProfileRegion(sources_), std::nullopt);
  sources_.config_file = (dir_ / "nope").string();
  sources_.profile = "default";
  EXPECT_EQ(ProfileRegion(sources_), std::nullopt);
}

}  // namespace
}  // namespace engram
