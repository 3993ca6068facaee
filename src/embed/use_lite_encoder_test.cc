#include "src/embed/use_lite_encoder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/common/hash.h"
#include "src/common/verified_stamp.h"
#include "src/embed/use_lite_converter.h"
#include "src/embed/use_lite_kernels.h"
#include "src/embed/use_lite_model_file.h"
#include "tests/test_util.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

constexpr double kTolerance = 1e-4;
// How far a sentence's vector may move with the batch it is embedded in (or
// the thread count) when products may run on sgemm: OpenBLAS blocks its
// sums by the row count, and whether a product reaches sgemm_min_rows
// depends on the batch, so only float rounding is the same, not every bit.
// On the packed kernel alone the vectors are bit-identical (see the tests
// with sgemm_min_rows = SIZE_MAX).
constexpr double kBatchTolerance = 1e-6;

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

// The real model loaded with `options`; null (and a failure added) when it
// does not load.
std::unique_ptr<UseLiteEncoder> LoadEncoder(const UseLiteEncoderOptions& options) {
  auto result = UseLiteEncoder::Load(ModelPath(), options);
  if (!result.ok()) {
    ADD_FAILURE() << result.status().ToString();
    return nullptr;
  }
  return std::move(result).value();
}

// The real model with default options, loaded once for the tests that
// share it.
const UseLiteEncoder* RealEncoder() {
  static const UseLiteEncoder* encoder =
      ModelPath().empty() ? nullptr : LoadEncoder(UseLiteEncoderOptions()).release();
  return encoder;
}

// The real model with every dense product on one path.
std::unique_ptr<UseLiteEncoder> LoadEncoderOnPath(size_t sgemm_min_rows) {
  UseLiteEncoderOptions options;
  options.sgemm_min_rows = sgemm_min_rows;
  return LoadEncoder(options);
}

std::vector<std::string> ValidationSentences() {
  return ReadGolden("golden-val.json")["embedding_sentences"].get<std::vector<std::string>>();
}

// Largest max |diff| between the vectors of `texts` embedded in one batch
// and one text at a time.
double WorstBatchVersusSingle(const UseLiteEncoder& encoder,
                              const std::vector<std::string>& texts) {
  auto batch = encoder.Embed(texts);
  EXPECT_TRUE(batch.ok()) << batch.status().ToString();
  if (!batch.ok()) return INFINITY;
  double worst = 0.0;
  for (size_t i = 0; i < texts.size(); ++i) {
    auto single = encoder.Embed({texts[i]});
    EXPECT_TRUE(single.ok()) << single.status().ToString();
    if (!single.ok() || single->size() != 1) return INFINITY;
    worst = std::max(worst, MaxAbsDiff((*batch)[i], (*single)[0]));
  }
  return worst;
}

// Largest max |diff| between the vectors two encoders give `texts`.
double WorstBetween(const UseLiteEncoder& a, const UseLiteEncoder& b,
                    const std::vector<std::string>& texts) {
  auto from_a = a.Embed(texts);
  auto from_b = b.Embed(texts);
  EXPECT_TRUE(from_a.ok() && from_b.ok());
  if (!from_a.ok() || !from_b.ok() || from_a->size() != texts.size() ||
      from_b->size() != texts.size()) {
    return INFINITY;
  }
  double worst = 0.0;
  for (size_t i = 0; i < texts.size(); ++i) {
    worst = std::max(worst, MaxAbsDiff((*from_a)[i], (*from_b)[i]));
  }
  return worst;
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
    ExpectGolden(*encoder_, sentences, expected);
  }

  static void ExpectGolden(const UseLiteEncoder& encoder, const nlohmann::json& sentences,
                           const nlohmann::json& expected) {
    ASSERT_EQ(sentences.size(), expected.size());
    const auto texts = sentences.get<std::vector<std::string>>();
    auto vectors = encoder.Embed(texts);
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

// Each dense path forced on every product: both reproduce the original,
// and they agree with each other far more closely than with it.
TEST_F(UseLiteEncoderTest, SgemmAndPackedKernelEachMatchTheOriginalAndEachOther) {
  const nlohmann::json small = ReadGolden("golden-small.json");
  const nlohmann::json val = ReadGolden("golden-val.json");
  const std::unique_ptr<UseLiteEncoder> sgemm = LoadEncoderOnPath(1);
  const std::unique_ptr<UseLiteEncoder> packed = LoadEncoderOnPath(SIZE_MAX);
  ASSERT_TRUE(sgemm != nullptr && packed != nullptr);
  for (const UseLiteEncoder* encoder : {sgemm.get(), packed.get()}) {
    ExpectGolden(*encoder, small["sentences"], small["embeddings"]);
    ExpectGolden(*encoder, val["embedding_sentences"], val["embeddings"]);
  }
  const double worst = WorstBetween(*sgemm, *packed, ValidationSentences());
  std::cout << "sgemm vs packed kernel: max |diff| " << worst << "\n";
  EXPECT_LE(worst, 1e-5);
  // Each ran on its own path only.
  EXPECT_GT(sgemm->DenseCounts().sgemm, 0u);
  EXPECT_EQ(sgemm->DenseCounts().packed, 0u);
  EXPECT_EQ(packed->DenseCounts().sgemm, 0u);
  EXPECT_GT(packed->DenseCounts().packed, 0u);
}

// The validation sentences in one batch (~900 tokens, on one thread
// whatever the CPU count) cross the default threshold on their per-token
// products, one at a time on none.
TEST_F(UseLiteEncoderTest, BatchGivesTheSameVectorsAsOneTextAtATime) {
  UseLiteEncoderOptions options;
  options.threads = 1;
  const std::unique_ptr<UseLiteEncoder> encoder = LoadEncoder(options);
  ASSERT_NE(encoder, nullptr);
  const double worst = WorstBatchVersusSingle(*encoder, ValidationSentences());
  std::cout << "batch vs one at a time: max |diff| " << worst << "\n";
  EXPECT_LE(worst, kBatchTolerance);
  EXPECT_GT(encoder->DenseCounts().sgemm, 0u);
  EXPECT_GT(encoder->DenseCounts().packed, 0u);
}

// The packed kernel sums in a fixed order whatever the batch, so on it
// alone the vectors are bit-identical, not merely close.
TEST_F(UseLiteEncoderTest, PackedKernelGivesBitIdenticalVectorsInAnyBatch) {
  const std::unique_ptr<UseLiteEncoder> packed = LoadEncoderOnPath(SIZE_MAX);
  ASSERT_NE(packed, nullptr);
  EXPECT_EQ(WorstBatchVersusSingle(*packed, ValidationSentences()), 0.0);
}

// Batch limits and thread counts regroup the texts: within kBatchTolerance
// in general, bit-identical on the packed kernel alone.
TEST_F(UseLiteEncoderTest, SmallBatchLimitGivesTheSameVectors) {
  const auto texts = ValidationSentences();
  for (const size_t sgemm_min_rows :
       {UseLiteEncoderOptions().sgemm_min_rows, size_t{1}, SIZE_MAX}) {
    UseLiteEncoderOptions options;
    options.sgemm_min_rows = sgemm_min_rows;
    const std::unique_ptr<UseLiteEncoder> large = LoadEncoder(options);
    options.max_batch_tokens = 1;  // raised to one full sentence (128 tokens)
    const std::unique_ptr<UseLiteEncoder> small = LoadEncoder(options);
    ASSERT_TRUE(large != nullptr && small != nullptr);
    EXPECT_LE(WorstBetween(*large, *small, texts),
              sgemm_min_rows == SIZE_MAX ? 0.0 : kBatchTolerance)
        << "sgemm_min_rows " << sgemm_min_rows;
  }
}

TEST_F(UseLiteEncoderTest, ThreadCountDoesNotChangeTheVectorsOrTheirOrder) {
  const auto texts = ValidationSentences();
  for (const size_t sgemm_min_rows :
       {UseLiteEncoderOptions().sgemm_min_rows, size_t{1}, SIZE_MAX}) {
    const double tolerance = sgemm_min_rows == SIZE_MAX ? 0.0 : kBatchTolerance;
    UseLiteEncoderOptions one;
    one.threads = 1;
    one.sgemm_min_rows = sgemm_min_rows;
    UseLiteEncoderOptions three = one;
    three.threads = 3;
    three.min_tokens_per_thread = 1;
    const std::unique_ptr<UseLiteEncoder> single_threaded = LoadEncoder(one);
    const std::unique_ptr<UseLiteEncoder> multi_threaded = LoadEncoder(three);
    ASSERT_TRUE(single_threaded != nullptr && multi_threaded != nullptr);
    auto a = single_threaded->Embed(texts);
    auto b = multi_threaded->Embed(texts);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->size(), texts.size());
    ASSERT_EQ(b->size(), texts.size());
    for (size_t i = 0; i < texts.size(); ++i) {
      EXPECT_LE(MaxAbsDiff((*a)[i], (*b)[i]), tolerance) << sgemm_min_rows << ": " << i;
    }
    // Fewer texts than threads, and two texts: every share non-empty.
    for (size_t count : {1, 2}) {
      const std::vector<std::string> few(texts.begin(), texts.begin() + count);
      auto c = multi_threaded->Embed(few);
      ASSERT_TRUE(c.ok());
      ASSERT_EQ(c->size(), count);
      for (size_t i = 0; i < count; ++i) {
        EXPECT_LE(MaxAbsDiff((*a)[i], (*c)[i]), tolerance) << sgemm_min_rows << ": " << i;
      }
    }
  }
}

// The converter stores each dense kernel row-major and as panels; the
// encoder reads either, so they must hold the same values.
TEST_F(UseLiteEncoderTest, ModelFileStoresEachDenseKernelInBothLayouts) {
  auto model = ReadUseLiteModelFile(ModelPath());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  size_t kernels = 0;
  for (const auto& [name, tensor] : model->tensors) {
    if (!name.ends_with(kUseLiteKernelSuffix)) continue;
    ++kernels;
    ASSERT_EQ(tensor.shape.size(), 2u) << name;
    const std::string base = name.substr(0, name.size() - kUseLiteKernelSuffix.size());
    const auto panels = model->tensors.find(base + std::string(kUseLitePanelsSuffix));
    ASSERT_NE(panels, model->tensors.end()) << name;
    std::vector<float> packed(panels->second.values.size());
    ASSERT_EQ(packed.size(),
              UseLitePanelCount(tensor.shape[1]) * tensor.shape[0] * kUseLitePanelWidth)
        << name;
    UseLitePackPanels(tensor.values.data(), tensor.shape[0], tensor.shape[1], packed.data());
    EXPECT_TRUE(std::equal(packed.begin(), packed.end(), panels->second.values.begin())) << name;
  }
  EXPECT_EQ(kernels, 10u);  // qkv, output, ffn1, ffn2 per layer, layer 0's residual, pool
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

TEST_F(UseLiteEncoderTest, WindowsReadALongTextWholeAndLeaveShortTextsAlone) {
  UseLiteEncoderOptions options;
  options.long_text = UseLiteLongText::kWindows;
  const std::unique_ptr<UseLiteEncoder> windows = LoadEncoder(options);
  ASSERT_NE(windows, nullptr);
  // Well over 128 tokens about cooking, then as much about rockets.
  std::string cooking;
  std::string rockets;
  for (int i = 0; i < 12; ++i) {
    cooking += "The chef slowly simmers the tomato soup with garlic and basil. ";
    rockets += "The rocket engine burns liquid oxygen and kerosene at launch. ";
  }
  const std::string both = cooking + rockets;
  ASSERT_GT(encoder_->Tokenizer().Encode(both).size(), 2 * UseLiteTokenizer::kMaxModelTokens);
  const std::string short_text = "Deploys happen on Thursdays.";

  auto truncated = encoder_->Embed({both, rockets, short_text});
  auto whole = windows->Embed({both, rockets, short_text});
  ASSERT_TRUE(truncated.ok()) << truncated.status().ToString();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const auto cosine = [](const std::vector<float>& a, const std::vector<float>& b) {
    double dot = 0.0;
    for (size_t i = 0; i < a.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
    return dot;
  };
  // Truncation sees only the cooking; windows see the rockets too.
  EXPECT_GT(cosine((*whole)[0], (*whole)[1]), cosine((*truncated)[0], (*truncated)[1]) + 0.1);
  EXPECT_NEAR(cosine((*whole)[0], (*whole)[0]), 1.0, 1e-5);
  // A text that fits the model embeds the same either way (up to the last
  // bits: the two batches differ in size, so may run on different kernels).
  EXPECT_LE(MaxAbsDiff((*whole)[2], (*truncated)[2]), 1e-6);
  // In a batch beside other texts, a windowed text keeps its vector.
  auto alone = windows->Embed({both});
  ASSERT_TRUE(alone.ok());
  EXPECT_LE(MaxAbsDiff((*alone)[0], (*whole)[0]), 1e-6);
}

TEST_F(UseLiteEncoderTest, BestWindowKeepsEachWindowsVectorInOrder) {
  // 24 sentences, cooking then rockets: 2 or 3 windows of at most 128 tokens.
  std::string text;
  for (int i = 0; i < 12; ++i)
    text += "The chef slowly simmers the tomato soup with garlic and basil. ";
  for (int i = 0; i < 12; ++i)
    text += "The rocket engine burns liquid oxygen and kerosene at launch. ";
  const size_t tokens = encoder_->Tokenizer().Encode(text).size();
  const size_t windows =
      (tokens + UseLiteTokenizer::kMaxModelTokens - 1) / UseLiteTokenizer::kMaxModelTokens;
  ASSERT_GE(windows, 2u);
  const std::string short_text = "Deploys happen on Thursdays.";

  auto best = encoder_->Embed({text, short_text}, UseLiteLongText::kBestWindow);
  auto mean = encoder_->Embed({text}, UseLiteLongText::kWindows);
  auto rockets = encoder_->Embed({"The rocket engine burns liquid oxygen and kerosene at launch."});
  auto alone = encoder_->Embed({short_text});
  ASSERT_TRUE(best.ok()) << best.status().ToString();
  ASSERT_TRUE(mean.ok() && rockets.ok() && alone.ok());
  ASSERT_EQ((*best)[0].size(), windows * 512);
  ASSERT_EQ((*best)[1].size(), 512u);
  const auto window = [&](size_t w) {
    return std::vector<float>((*best)[0].begin() + static_cast<std::ptrdiff_t>(w * 512),
                              (*best)[0].begin() + static_cast<std::ptrdiff_t>((w + 1) * 512));
  };
  const auto cosine = [](const std::vector<float>& a, const std::vector<float>& b) {
    double dot = 0.0;
    for (size_t i = 0; i < a.size(); ++i) dot += static_cast<double>(a[i]) * b[i];
    return dot;
  };
  // Each window is a unit vector; the last reads the rockets, the first the
  // cooking.
  for (size_t w = 0; w < windows; ++w) EXPECT_NEAR(cosine(window(w), window(w)), 1.0, 1e-5);
  EXPECT_GT(cosine(window(windows - 1), (*rockets)[0]), cosine(window(0), (*rockets)[0]) + 0.1);
  // kWindows's vector is the windows' mean, weighted by their tokens
  // (windows differ by at most one token, so nearly unweighted).
  std::vector<float> sum(512, 0.0f);
  for (size_t w = 0; w < windows; ++w) {
    const std::vector<float> v = window(w);
    for (size_t c = 0; c < 512; ++c) sum[c] += v[c];
  }
  EXPECT_GT(cosine(sum, (*mean)[0]) / std::sqrt(cosine(sum, sum)), 0.9999);
  // A text that fits the model is one window, as in every reading.
  EXPECT_LE(MaxAbsDiff((*best)[1], (*alone)[0]), 1e-6);
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

// The stamp beside a verified file (src/common/verified_stamp.h) spares later reads the
// hash until the file changes; a mapped file embeds the same.
TEST_F(UseLiteEncoderTest, AVerifiedStampSkipsTheHashUntilTheFileChanges) {
  const std::string bytes = testing::ReadFile(ModelPath());
  const testing::TempDir scratch;
  const std::string path = scratch.File("use_lite.model");
  testing::WriteFile(path, bytes);
  ASSERT_TRUE(ReadUseLiteModelFile(path).ok());
  // Just written: not stamped yet (file times tick coarsely).
  EXPECT_FALSE(fs::exists(path + ".verified"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE(ReadUseLiteModelFile(path).ok());
  ASSERT_TRUE(fs::exists(path + ".verified"));
  EXPECT_EQ(fs::status(path + ".verified").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);

  UseLiteEncoderOptions mapped;
  mapped.map_model_file = true;
  auto encoder = UseLiteEncoder::Load(path, mapped);
  ASSERT_TRUE(encoder.ok()) << encoder.status().ToString();
  const nlohmann::json golden = ReadGolden("golden-small.json");
  ExpectGolden(**encoder, golden["sentences"], golden["embeddings"]);

  // Rewritten in place, same size: the stamp no longer matches, so the
  // hash runs and finds the change, mapped or read.
  std::string flipped = bytes;
  flipped[flipped.size() / 2] ^= 0x40;
  testing::WriteFile(path, flipped);
  for (const bool map : {false, true}) {
    UseLiteModelReadOptions options;
    options.map = map;
    EXPECT_EQ(ReadUseLiteModelFile(path, options).status().code(), StatusCode::kCorruption) << map;
  }

  // A stamp recorded for the changed bytes is trusted (what a stamp cannot
  // see); a full check still finds them.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto changed = FileContents::Read(path);
  ASSERT_TRUE(changed.ok());
  uint64_t trailer = 0;
  std::memcpy(&trailer, flipped.data() + flipped.size() - sizeof(trailer), sizeof(trailer));
  WriteVerifiedStamp(path, (*changed)->FileStamp(), trailer);
  EXPECT_TRUE(ReadUseLiteModelFile(path).ok());
  UseLiteModelReadOptions full;
  full.full_check = true;
  EXPECT_EQ(ReadUseLiteModelFile(path, full).status().code(), StatusCode::kCorruption);
}

// The tokenizer's tables a model file keeps are what its vocabulary
// builds; a full check (engram check) rebuilds them and finds tables that
// are not, even behind a right checksum.
TEST_F(UseLiteEncoderTest, AFullCheckFindsTokenizerTablesThatAreNotTheVocabularys) {
  UseLiteModelReadOptions full;
  full.full_check = true;
  auto model = ReadUseLiteModelFile(ModelPath(), full);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ(model->pieces.size(), model->tokenizer.piece_utf16_length.size());

  // One node's score changed where the file keeps it, the checksum made
  // right again.
  std::string bytes = testing::ReadFile(ModelPath());
  const auto score_at =
      static_cast<size_t>(reinterpret_cast<const char*>(&model->tokenizer.node_score[1]) -
                          reinterpret_cast<const char*>(model->storage->Bytes().data()));
  double score = 0;
  std::memcpy(&score, bytes.data() + score_at, sizeof(score));
  score -= 1.0;
  std::memcpy(bytes.data() + score_at, &score, sizeof(score));
  const uint64_t sum = FastChecksum64(std::string_view(bytes).substr(0, bytes.size() - 8));
  std::memcpy(bytes.data() + bytes.size() - 8, &sum, sizeof(sum));
  const testing::TempDir scratch;
  const std::string path = scratch.File("use_lite_tables.model");
  testing::WriteFile(path, bytes);
  EXPECT_TRUE(ReadUseLiteModelFile(path).ok()) << "reads: only a full check rebuilds the tables";
  auto checked = ReadUseLiteModelFile(path, full);
  EXPECT_EQ(checked.status().code(), StatusCode::kCorruption);
  EXPECT_THAT(checked.status().message(),
              ::testing::HasSubstr("the tokenizer's tables are not those of its vocabulary"));
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

// Every build of the packed kernel this CPU runs.
std::vector<UseLiteIsa> IsasToTest() {
  std::vector<UseLiteIsa> isas;
  for (const UseLiteIsa isa : {UseLiteIsa::kPortable, UseLiteIsa::kAvx2, UseLiteIsa::kAvx512}) {
    if (UseLiteRuns(isa)) isas.push_back(isa);
  }
  return isas;
}

// A dense product: UseLiteDense in one build, or UseLiteDenseSgemm.
struct DenseProduct {
  std::string name;
  std::function<void(const float*, size_t, const UseLitePackedDense&, float*,
                     const UseLiteDenseEpilogue&)>
      run;
  bool fixed_order = true;  // sums in index order (the packed kernel)
};

std::vector<DenseProduct> DenseProductsToTest() {
  std::vector<DenseProduct> products;
  for (const UseLiteIsa isa : IsasToTest()) {
    products.push_back({"packed, isa " + std::to_string(static_cast<int>(isa)),
                        [isa](const float* x, size_t rows, const UseLitePackedDense& dense,
                              float* y, const UseLiteDenseEpilogue& epilogue) {
                          UseLiteDense(x, rows, dense, y, epilogue, isa);
                        }});
  }
  products.push_back({"sgemm",
                      [](const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
                         const UseLiteDenseEpilogue& epilogue) {
                        const Result<const BlasApi*> blas = Blas();
                        ASSERT_TRUE(blas.ok()) << blas.status().ToString();
                        UseLiteDenseSgemm(**blas, x, rows, dense, y, epilogue);
                      },
                      false});
  return products;
}

TEST(UseLiteKernelsTest, DenseMatchesNaiveProductForAnyShapeAndEpilogue) {
  for (const DenseProduct& product : DenseProductsToTest()) {
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
              product.run(x.data(), rows, dense, y.data(), epilogue);
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
              EXPECT_LE(worst, 1e-4) << product.name << " in " << in << " out " << out << " rows "
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

TEST(UseLiteKernelsTest, TheBuildsWithFmaAreBitIdentical) {
  if (!UseLiteRuns(UseLiteIsa::kAvx512)) GTEST_SKIP() << "this CPU has no AVX-512F";
  for (const size_t out : {16, 70, 144}) {
    const size_t in = 300;
    const std::vector<float> kernel = RandomValues(in * out, 12);
    const std::vector<float> bias = RandomValues(out, 13);
    const UseLitePackedDense dense(kernel.data(), bias.data(), in, out);
    for (const size_t rows : {1, 2, 3, 4, 5, 6, 7, 13, 49}) {
      const std::vector<float> x = RandomValues(rows * in, 14);
      const std::vector<float> residual = RandomValues(rows * out, 15);
      for (const bool relu : {false, true}) {
        UseLiteDenseEpilogue epilogue;
        epilogue.relu = relu;
        epilogue.residual = residual.data();
        std::vector<float> avx2(rows * out);
        std::vector<float> avx512(rows * out, NAN);
        UseLiteDense(x.data(), rows, dense, avx2.data(), epilogue, UseLiteIsa::kAvx2);
        UseLiteDense(x.data(), rows, dense, avx512.data(), epilogue, UseLiteIsa::kAvx512);
        for (size_t i = 0; i < avx2.size(); ++i) {
          ASSERT_EQ(std::bit_cast<uint32_t>(avx2[i]), std::bit_cast<uint32_t>(avx512[i]))
              << "out " << out << " rows " << rows << " relu " << relu << " at " << i;
        }
      }
    }
  }
}

// Bit-identical on the packed kernel; sgemm adds the same terms in another
// order when the residual is the output.
TEST(UseLiteKernelsTest, DenseResidualMayBeTheOutputItself) {
  const size_t in = 37;
  const size_t out = 40;
  const size_t rows = 7;
  const std::vector<float> kernel = RandomValues(in * out, 8);
  const std::vector<float> bias = RandomValues(out, 9);
  const UseLitePackedDense dense(kernel.data(), bias.data(), in, out);
  const std::vector<float> x = RandomValues(rows * in, 10);
  const std::vector<float> residual = RandomValues(rows * out, 11);
  for (const DenseProduct& product : DenseProductsToTest()) {
    for (const bool relu : {false, true}) {
      UseLiteDenseEpilogue apart;
      apart.residual = residual.data();
      apart.relu = relu;
      std::vector<float> want(rows * out);
      product.run(x.data(), rows, dense, want.data(), apart);
      std::vector<float> y = residual;
      UseLiteDenseEpilogue in_place = apart;
      in_place.residual = y.data();
      product.run(x.data(), rows, dense, y.data(), in_place);
      EXPECT_LE(MaxAbsDiff(y, want), product.fixed_order ? 0.0 : 1e-5)
          << product.name << " relu " << relu;
    }
  }
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
