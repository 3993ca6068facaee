#include "src/embed/use_lite_encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/embed/use_lite_converter.h"
#include "src/embed/use_lite_kernels.h"
#include "tests/test_util.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

constexpr double kTolerance = 1e-4;

std::string DistDir() { return std::string(ENGRAM_MODEL_PACKAGE_DIR) + "/dist"; }

nlohmann::json ReadGolden(const std::string& name) {
  std::ifstream in(std::string(ENGRAM_TEST_DATA_DIR) + "/use-lite/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

double MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double worst = a.size() == b.size() ? 0.0 : INFINITY;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    worst = std::max(worst, std::abs(static_cast<double>(a[i]) - b[i]));
  }
  return worst;
}

// The package converted by use_lite_convert at build time; empty when the
// file is missing (reported as a failure by the tests that need it).
const std::string& ModelPath() {
  static const std::string path =
      fs::exists(ENGRAM_TEST_MODEL_FILE) ? std::string(ENGRAM_TEST_MODEL_FILE) : std::string();
  return path;
}

const UseLiteEncoder* RealEncoder() {
  static const UseLiteEncoder* encoder = []() -> const UseLiteEncoder* {
    if (ModelPath().empty()) return nullptr;
    auto result = UseLiteEncoder::Load(ModelPath());
    if (!result.ok()) {
      ADD_FAILURE() << result.status().ToString();
      return nullptr;
    }
    return std::move(result).value().release();
  }();
  return encoder;
}

// Tests on the real model, which set-up (scripts/fetch_model.sh) unpacks
// where the build says; its absence is a failure, not a skip.
class UseLiteEncoderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    encoder_ = RealEncoder();
    if (encoder_ == nullptr) {
      FAIL() << "no USE-Lite model from " << DistDir() << "; run scripts/fetch_model.sh";
    }
  }

  // Embeds `sentences` in one batch and checks each against `expected`.
  void ExpectGolden(const nlohmann::json& sentences, const nlohmann::json& expected) {
    ASSERT_EQ(sentences.size(), expected.size());
    const auto texts = sentences.get<std::vector<std::string>>();
    auto vectors = encoder_->Embed(texts);
    ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
    ASSERT_EQ(vectors->size(), texts.size());
    double worst = 0.0;
    size_t worst_index = 0;
    for (size_t i = 0; i < texts.size(); ++i) {
      const auto want = expected[i].get<std::vector<float>>();
      const double diff = MaxAbsDiff((*vectors)[i], want);
      EXPECT_LE(diff, kTolerance) << "sentence " << i << ": " << texts[i];
      if (diff > worst) {
        worst = diff;
        worst_index = i;
      }
    }
    std::cout << "worst max |diff| " << worst << " on sentence " << worst_index << "\n";
  }

  const UseLiteEncoder* encoder_ = nullptr;
};

TEST_F(UseLiteEncoderTest, MatchesOriginalOnSmallGolden) {
  const nlohmann::json golden = ReadGolden("golden-small.json");
  ExpectGolden(golden["sentences"], golden["embeddings"]);
}

TEST_F(UseLiteEncoderTest, MatchesOriginalOnAllValidationSentences) {
  const nlohmann::json golden = ReadGolden("golden-val.json");
  ASSERT_EQ(golden["embedding_sentences"].size(), 60u);
  ExpectGolden(golden["embedding_sentences"], golden["embeddings"]);
}

// Every sum runs in a fixed order whatever the batch, so the vectors are
// bit-identical, not merely close.
TEST_F(UseLiteEncoderTest, BatchGivesTheSameVectorsAsOneTextAtATime) {
  const auto texts =
      ReadGolden("golden-val.json")["embedding_sentences"].get<std::vector<std::string>>();
  auto batch = encoder_->Embed(texts);
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  double worst = 0.0;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto single = encoder_->Embed({texts[i]});
    ASSERT_TRUE(single.ok()) << single.status().ToString();
    ASSERT_EQ(single->size(), 1u);
    worst = std::max(worst, MaxAbsDiff((*batch)[i], (*single)[0]));
  }
  EXPECT_EQ(worst, 0.0);
}

TEST_F(UseLiteEncoderTest, SmallBatchLimitGivesTheSameVectors) {
  UseLiteEncoderOptions options;
  options.max_batch_tokens = 1;  // raised to one full sentence (128 tokens)
  auto small = UseLiteEncoder::Load(ModelPath(), options);
  ASSERT_TRUE(small.ok()) << small.status().ToString();
  const auto texts =
      ReadGolden("golden-val.json")["embedding_sentences"].get<std::vector<std::string>>();
  auto a = encoder_->Embed(texts);
  auto b = (*small)->Embed(texts);
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(MaxAbsDiff((*a)[i], (*b)[i]), 0.0) << i;
}

TEST_F(UseLiteEncoderTest, ThreadCountDoesNotChangeTheVectorsOrTheirOrder) {
  const auto texts =
      ReadGolden("golden-val.json")["embedding_sentences"].get<std::vector<std::string>>();
  UseLiteEncoderOptions one;
  one.threads = 1;
  UseLiteEncoderOptions three;
  three.threads = 3;
  three.min_tokens_per_thread = 1;
  auto single_threaded = UseLiteEncoder::Load(ModelPath(), one);
  auto multi_threaded = UseLiteEncoder::Load(ModelPath(), three);
  ASSERT_TRUE(single_threaded.ok() && multi_threaded.ok());
  auto a = (*single_threaded)->Embed(texts);
  auto b = (*multi_threaded)->Embed(texts);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->size(), texts.size());
  ASSERT_EQ(b->size(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) EXPECT_EQ(MaxAbsDiff((*a)[i], (*b)[i]), 0.0) << i;
  // Fewer texts than threads, and two texts: every share non-empty.
  for (size_t count : {1, 2}) {
    const std::vector<std::string> few(texts.begin(), texts.begin() + count);
    auto c = (*multi_threaded)->Embed(few);
    ASSERT_TRUE(c.ok());
    ASSERT_EQ(c->size(), count);
    for (size_t i = 0; i < count; ++i) EXPECT_EQ(MaxAbsDiff((*a)[i], (*c)[i]), 0.0) << i;
  }
}

TEST_F(UseLiteEncoderTest, VectorsAreUnitLengthAndDimensionIs512) {
  EXPECT_EQ(encoder_->Dimension(), 512u);
  auto vectors = encoder_->Embed({"hello world", std::string(2000, 'x') + " long text"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  for (const auto& vector : *vectors) {
    ASSERT_EQ(vector.size(), 512u);
    double norm = 0.0;
    for (const float value : vector) norm += static_cast<double>(value) * value;
    EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-5);
  }
}

TEST_F(UseLiteEncoderTest, EmptyTextIsAnErrorNamingItsIndex) {
  auto result = encoder_->Embed({"fine", ""});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(result.status().message().find("text 1 is empty"), std::string::npos);
  auto none = encoder_->Embed({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(UseLiteEncoderTest, ConcurrentCallsGiveTheSameVectors) {
  const std::vector<std::string> texts = {"user prefers dark mode in the editor",
                                          "Where does Alice work?"};
  auto expected = encoder_->Embed(texts);
  ASSERT_TRUE(expected.ok());
  std::vector<std::thread> threads;
  std::vector<double> worst(4, 0.0);
  for (size_t t = 0; t < worst.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 5; ++round) {
        auto got = encoder_->Embed(texts);
        if (!got.ok()) {
          worst[t] = INFINITY;
          return;
        }
        for (size_t i = 0; i < texts.size(); ++i) {
          worst[t] = std::max(worst[t], MaxAbsDiff((*got)[i], (*expected)[i]));
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const double w : worst) EXPECT_LE(w, 1e-6);
}

TEST_F(UseLiteEncoderTest, CorruptedModelFileIsAClearError) {
  const std::string bytes = testing::ReadFile(ModelPath());
  const testing::TempDir scratch;
  const std::string path = scratch.File("use_lite_corrupt.model");

  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  testing::WriteFile(path, flipped);
  auto corrupt = UseLiteEncoder::Load(path);
  ASSERT_FALSE(corrupt.ok());
  EXPECT_EQ(corrupt.status().code(), StatusCode::kCorruption);
  EXPECT_NE(corrupt.status().message().find("checksum"), std::string::npos)
      << corrupt.status().ToString();

  testing::WriteFile(path, bytes.substr(0, bytes.size() - 1000));
  auto truncated = UseLiteEncoder::Load(path);
  ASSERT_FALSE(truncated.ok());
  EXPECT_EQ(truncated.status().code(), StatusCode::kCorruption);

  testing::WriteFile(path, "not a model");
  auto garbage = UseLiteEncoder::Load(path);
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kCorruption);
  EXPECT_NE(garbage.status().message().find("magic"), std::string::npos);

  auto missing = UseLiteEncoder::Load(path + ".does-not-exist");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  fs::remove(path);
}

// The kernels (use_lite_kernels.h) against naive double-precision
// references, for every build this CPU runs.

std::vector<float> RandomValues(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float& value : values) value = uniform(generator);
  return values;
}

std::vector<UseLiteIsa> IsasToTest() {
  std::vector<UseLiteIsa> isas = {UseLiteIsa::kPortable};
  if (UseLiteBestIsa() != UseLiteIsa::kPortable) isas.push_back(UseLiteBestIsa());
  return isas;
}

TEST(UseLiteKernelsTest, DenseMatchesNaiveProductForAnyShapeAndEpilogue) {
  for (const UseLiteIsa isa : IsasToTest()) {
    for (const size_t in : {1, 37, 300}) {
      for (const size_t out : {8, 40, 70, 144}) {
        const std::vector<float> kernel = RandomValues(in * out, 1);
        const std::vector<float> bias = RandomValues(out, 2);
        const UseLitePackedDense dense(kernel.data(), bias.data(), in, out);
        for (const size_t rows : {1, 2, 3, 4, 5, 6, 7, 9, 13, 47, 48, 49, 100}) {
          const std::vector<float> x = RandomValues(rows * in, 3);
          const std::vector<float> residual = RandomValues(rows * out, 4);
          for (const bool relu : {false, true}) {
            for (const bool with_residual : {false, true}) {
              UseLiteDenseEpilogue epilogue;
              epilogue.relu = relu;
              epilogue.residual = with_residual ? residual.data() : nullptr;
              std::vector<float> y(rows * out, NAN);
              UseLiteDense(x.data(), rows, dense, y.data(), epilogue, isa);
              double worst = 0.0;
              for (size_t r = 0; r < rows; ++r) {
                for (size_t c = 0; c < out; ++c) {
                  double want = bias[c];
                  for (size_t k = 0; k < in; ++k) {
                    want += static_cast<double>(x[r * in + k]) * kernel[k * out + c];
                  }
                  if (with_residual) want += residual[r * out + c];
                  if (relu) want = std::max(want, 0.0);
                  worst = std::max(worst, std::abs(want - y[r * out + c]));
                }
              }
              EXPECT_LE(worst, 1e-4)
                  << "isa " << static_cast<int>(isa) << " in " << in << " out " << out << " rows "
                  << rows << " relu " << relu << " residual " << with_residual;
            }
          }
        }
      }
    }
  }
}

TEST(UseLiteKernelsTest, DenseRowIsBitIdenticalAloneOrInAnyBatch) {
  const size_t in = 300;
  const size_t out = 70;
  const std::vector<float> kernel = RandomValues(in * out, 5);
  const std::vector<float> bias = RandomValues(out, 6);
  const UseLitePackedDense dense(kernel.data(), bias.data(), in, out);
  for (const UseLiteIsa isa : IsasToTest()) {
    const size_t rows = 100;
    const std::vector<float> x = RandomValues(rows * in, 7);
    std::vector<float> all(rows * out);
    UseLiteDense(x.data(), rows, dense, all.data(), {}, isa);
    for (size_t r = 0; r < rows; ++r) {
      std::vector<float> one(out);
      UseLiteDense(x.data() + r * in, 1, dense, one.data(), {}, isa);
      for (size_t c = 0; c < out; ++c) ASSERT_EQ(one[c], all[r * out + c]) << r << ", " << c;
    }
  }
}

TEST(UseLiteKernelsTest, DenseResidualMayBeTheOutputItself) {
  const size_t in = 37;
  const size_t out = 40;
  const size_t rows = 7;
  const std::vector<float> kernel = RandomValues(in * out, 8);
  const std::vector<float> bias = RandomValues(out, 9);
  const UseLitePackedDense dense(kernel.data(), bias.data(), in, out);
  const std::vector<float> x = RandomValues(rows * in, 10);
  const std::vector<float> residual = RandomValues(rows * out, 11);
  UseLiteDenseEpilogue apart;
  apart.residual = residual.data();
  std::vector<float> want(rows * out);
  UseLiteDense(x.data(), rows, dense, want.data(), apart);
  std::vector<float> y = residual;
  UseLiteDenseEpilogue in_place;
  in_place.residual = y.data();
  UseLiteDense(x.data(), rows, dense, y.data(), in_place);
  EXPECT_EQ(y, want);
}

TEST(UseLiteKernelsTest, AttentionMatchesNaiveSoftmaxPerSentenceAndHead) {
  const size_t dim = 24;
  const size_t heads = 4;
  const size_t head_dim = dim / heads;
  const float query_scale = 0.4f;
  const std::vector<size_t> offsets = {0, 1, 6, 6, 19};  // one sentence empty
  const size_t rows = offsets.back();
  const std::vector<float> qkv = RandomValues(rows * 3 * dim, 12);
  std::vector<float> out(rows * dim, NAN);
  std::vector<float> scratch;
  UseLiteAttention(qkv.data(), offsets, dim, heads, query_scale, out.data(), &scratch);
  double worst = 0.0;
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    for (size_t h = 0; h < heads; ++h) {
      for (size_t t = offsets[s]; t < offsets[s + 1]; ++t) {
        std::vector<double> weights;
        for (size_t j = offsets[s]; j < offsets[s + 1]; ++j) {
          double score = 0.0;
          for (size_t c = 0; c < head_dim; ++c) {
            score += static_cast<double>(qkv[t * 3 * dim + h * head_dim + c] * query_scale) *
                     qkv[j * 3 * dim + dim + h * head_dim + c];
          }
          weights.push_back(score);
        }
        const double peak = *std::max_element(weights.begin(), weights.end());
        double total = 0.0;
        for (double& weight : weights) total += (weight = std::exp(weight - peak));
        for (size_t c = 0; c < head_dim; ++c) {
          double want = 0.0;
          for (size_t j = offsets[s]; j < offsets[s + 1]; ++j) {
            want += weights[j - offsets[s]] / total * qkv[j * 3 * dim + 2 * dim + h * head_dim + c];
          }
          worst = std::max(worst, std::abs(want - out[t * dim + h * head_dim + c]));
        }
      }
    }
  }
  EXPECT_LE(worst, 1e-5);
}

// A copy of the package's dist/ (as symbolic links) to break on purpose.
class UseLiteConverterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(DistDir() + "/model.json")) {
      FAIL() << "no USE-Lite package at " << DistDir() << "; run scripts/fetch_model.sh";
    }
    dir_ = scratch_.path().string();
    for (const auto& entry : fs::directory_iterator(DistDir())) {
      fs::create_symlink(fs::absolute(entry.path()), dir_ + "/" + entry.path().filename().string());
    }
  }

  // Each test has its own directory: ctest runs them side by side.
  testing::TempDir scratch_;
  std::string dir_;
};

TEST_F(UseLiteConverterTest, MissingShardIsNotFoundNamingIt) {
  fs::remove(dir_ + "/group1-shard3of7");
  const Status status = ConvertUseLitePackage(dir_, dir_ + "/out.model");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("group1-shard3of7"), std::string::npos) << status.ToString();
  EXPECT_FALSE(fs::exists(dir_ + "/out.model"));
}

TEST_F(UseLiteConverterTest, ShortShardIsAByteCountError) {
  const std::string shard = dir_ + "/group1-shard7of7";
  const std::string bytes = testing::ReadFile(shard);
  fs::remove(shard);
  testing::WriteFile(shard, bytes.substr(0, bytes.size() - 4));
  const Status status = ConvertUseLitePackage(dir_, dir_ + "/out.model");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("bytes"), std::string::npos) << status.ToString();
}

TEST_F(UseLiteConverterTest, MissingDirectoryIsNotFound) {
  const Status status = ConvertUseLitePackage(dir_ + "/nowhere", dir_ + "/out.model");
  EXPECT_EQ(status.code(), StatusCode::kNotFound) << status.ToString();
}

}  // namespace
}  // namespace engram
