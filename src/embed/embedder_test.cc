#include "engram/embedder.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>

#include "src/common/local_models.h"
#include "src/embed/hash_embedder.h"
#include "src/embed/loading_embedder.h"
#include "src/embed/local_embedder.h"

namespace engram {
namespace {

EmbedderOptions ModelsIn(const std::string& dir) {
  EmbedderOptions options;
  options.models_dir = dir;
  return options;
}

namespace fs = std::filesystem;

double Dot(const std::vector<float>& a, const std::vector<float>& b) {
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

TEST(HashEmbedderTest, DeterministicUnitVectorsOfTheAskedDimension) {
  auto e = CreateEmbedder("hash:dim=64", {});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->Space().Key(), "hash:fnv1a:64");
  auto a = (*e)->Embed({"Postgres listens on port 5433", "a"}, EmbedPurpose::kDocument);
  auto b = (*e)->Embed({"Postgres listens on port 5433"}, EmbedPurpose::kQuery);
  ASSERT_TRUE(a.ok());
  ASSERT_EQ(a->size(), 2u);
  EXPECT_EQ((*a)[0], (*b)[0]);
  for (const auto& v : *a) {
    ASSERT_EQ(v.size(), 64u);
    EXPECT_NEAR(Dot(v, v), 1.0, 1e-6);
  }
}

TEST(HashEmbedderTest, SharedWordsMeanHigherCosine) {
  auto e = CreateEmbedder("hash", {});
  ASSERT_TRUE(e.ok());
  auto v =
      (*e)->Embed({"deploy the billing service", "deploying billing services", "lunch is at noon"},
                  EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok());
  EXPECT_GT(Dot((*v)[0], (*v)[1]), Dot((*v)[0], (*v)[2]) + 0.3);
}

TEST(EmbedderFactoryTest, NullProviderAlwaysFails) {
  auto e = CreateEmbedder("null", {});
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed({"x"}, EmbedPurpose::kQuery);
  EXPECT_EQ(v.status().code(), StatusCode::kFailedPrecondition);
}

TEST(EmbedderFactoryTest, BadSpecsAreClearErrors) {
  EXPECT_NE(CreateEmbedder("word2vec", {}).status().message().find("unknown provider"),
            std::string::npos);
  EXPECT_NE(CreateEmbedder("hash:dim=3", {}).status().message().find("8..4096"), std::string::npos);
  EXPECT_NE(CreateEmbedder("hash:size=3", {}).status().message().find("hash:dim=N"),
            std::string::npos);
  EXPECT_NE(CreateEmbedder("local:bert", {}).status().message().find("use-lite-en-windows"),
            std::string::npos);
  EXPECT_NE(CreateEmbedder("local:bert", {}).status().message().find("use-lite-en-best-window"),
            std::string::npos);
  auto missing = CreateEmbedder("local", ModelsIn("/nonexistent/models"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("/nonexistent/models/use-lite-en.bin"),
            std::string::npos);
}

TEST(LocalEmbedderTest, PrepareLowerCasesOnlyAllCapsText) {
  EXPECT_EQ(LocalEmbedder::Prepare("DEPLOY ON THURSDAYS"), "deploy on thursdays");
  EXPECT_EQ(LocalEmbedder::Prepare("Deploy on Thursdays"), "Deploy on Thursdays");
  EXPECT_EQ(LocalEmbedder::Prepare("NASA launches"), "NASA launches");
  EXPECT_EQ(LocalEmbedder::Prepare("12345"), "12345");
}

TEST(LocalEmbedderTest, EmbedsThroughTheConvertedModel) {
  // The model file use_lite_convert wrote at build time.
  const std::string models_dir = fs::path(ENGRAM_TEST_MODEL_FILE).parent_path().string();
  auto e = CreateEmbedder("local", ModelsIn(models_dir));
  ASSERT_TRUE(e.ok()) << e.status().ToString() << " (run scripts/fetch_model.sh)";
  EXPECT_EQ((*e)->Space().Key(), "local:use-lite-en:512");
  auto v = (*e)->Embed({"The deploy happens on Thursdays.", "DEPLOYS HAPPEN ON THURSDAYS",
                        "deploys happen on thursdays", "I like green tea."},
                       EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  for (const auto& x : *v) EXPECT_NEAR(Dot(x, x), 1.0, 1e-5);
  // All caps embeds like its lower-case form, and paraphrases sit closer
  // than unrelated text.
  EXPECT_NEAR(Dot((*v)[1], (*v)[2]), 1.0, 1e-5);
  EXPECT_GT(Dot((*v)[0], (*v)[2]), Dot((*v)[0], (*v)[3]));
  EXPECT_FALSE((*e)->Embed({"bad \xff"}, EmbedPurpose::kQuery).ok());

  // The windowed reading is a space of its own.
  auto windows = CreateEmbedder("local:use-lite-en-windows", ModelsIn(models_dir));
  ASSERT_TRUE(windows.ok()) << windows.status().ToString();
  EXPECT_EQ((*windows)->Space().Key(), "local:use-lite-en-windows:512");
  EXPECT_EQ((*windows)->Space().MaxVectorsPerDocument(), 1u);

  // The best-window reading: a long document is a vector per window, a
  // query of the same text one vector.
  auto best = CreateEmbedder("local:use-lite-en-best-window", ModelsIn(models_dir));
  ASSERT_TRUE(best.ok()) << best.status().ToString();
  EXPECT_EQ((*best)->Space().Key(), "local:use-lite-en-best-window:512");
  EXPECT_EQ((*best)->Space().MaxVectorsPerDocument(), 16u);
  std::string long_text;
  for (int i = 0; i < 30; ++i) long_text += "The deploy pipeline runs every Thursday at noon. ";
  auto document = (*best)->Embed({long_text}, EmbedPurpose::kDocument);
  auto query = (*best)->Embed({long_text}, EmbedPurpose::kQuery);
  ASSERT_TRUE(document.ok() && query.ok());
  EXPECT_GE((*document)[0].size(), 2u * 512);
  EXPECT_EQ((*document)[0].size() % 512, 0u);
  EXPECT_EQ((*query)[0].size(), 512u);
}

// A model loaded in the background embeds exactly as one loaded first,
// in the same space.
TEST(LocalEmbedderTest, AModelLoadedInTheBackgroundEmbedsAsOneLoadedFirst) {
  const std::string models_dir = fs::path(ENGRAM_TEST_MODEL_FILE).parent_path().string();
  EmbedderOptions background = ModelsIn(models_dir);
  background.load_in_background = true;
  for (const std::string spec : {"local", "local:use-lite-en-best-window"}) {
    auto first = CreateEmbedder(spec, ModelsIn(models_dir));
    auto later = CreateEmbedder(spec, background);
    ASSERT_TRUE(first.ok() && later.ok()) << spec;
    EXPECT_NE(dynamic_cast<const LoadingEmbedder*>(later->get()), nullptr) << spec;
    EXPECT_EQ((*later)->Space().Key(), (*first)->Space().Key());
    EXPECT_EQ((*later)->Space().MaxVectorsPerDocument(), (*first)->Space().MaxVectorsPerDocument());
    const std::vector<std::string> texts = {"The deploy happens on Thursdays.", "green tea"};
    for (const EmbedPurpose purpose : {EmbedPurpose::kQuery, EmbedPurpose::kDocument}) {
      auto a = (*first)->Embed(texts, purpose);
      auto b = (*later)->Embed(texts, purpose);
      ASSERT_TRUE(a.ok() && b.ok()) << spec;
      EXPECT_EQ(*a, *b) << spec;
    }
  }
  // A model that is not one fails every Embed, naming the file.
  const fs::path bad_dir = fs::path(testing::TempDir()) / "loading-embedder-bad-model";
  fs::create_directories(bad_dir);
  {
    std::FILE* f = std::fopen((bad_dir / kUseLiteModelFileName).c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fputs("not a model", f);
    std::fclose(f);
  }
  EmbedderOptions bad = ModelsIn(bad_dir.string());
  bad.load_in_background = true;
  auto broken = CreateEmbedder("local", bad);
  ASSERT_TRUE(broken.ok()) << broken.status().ToString();
  for (int i = 0; i < 2; ++i) {
    auto v = (*broken)->Embed({"x"}, EmbedPurpose::kQuery);
    ASSERT_FALSE(v.ok());
    EXPECT_NE(v.status().message().find(kUseLiteModelFileName), std::string::npos)
        << v.status().ToString();
  }
  bad.load_in_background = false;
  EXPECT_FALSE(CreateEmbedder("local", bad).ok());
  fs::remove_all(bad_dir);
}

TEST(LoadingEmbedderTest, SpaceAnswersBeforeTheLoadAndEmbedWaitsForIt) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  const HashEmbedder inner_reference(16);
  LoadingEmbedder loading(inner_reference.Space(),
                          [released]() -> Result<std::unique_ptr<Embedder>> {
                            released.wait();
                            return std::unique_ptr<Embedder>(new HashEmbedder(16));
                          });
  EXPECT_EQ(loading.Space().Key(), inner_reference.Space().Key());
  auto embedded = std::async(std::launch::async,
                             [&] { return loading.Embed({"red lamp"}, EmbedPurpose::kQuery); });
  EXPECT_EQ(embedded.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  release.set_value();
  auto v = embedded.get();
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, *inner_reference.Embed({"red lamp"}, EmbedPurpose::kQuery));
}

TEST(LoadingEmbedderTest, AFailedLoadOrAnotherSpaceFailsEveryEmbed) {
  LoadingEmbedder failed(HashEmbedder(16).Space(), []() -> Result<std::unique_ptr<Embedder>> {
    return Corruption("embed: model file m.bin: checksum mismatch");
  });
  for (int i = 0; i < 2; ++i) {
    auto v = failed.Embed({"x"}, EmbedPurpose::kQuery);
    ASSERT_FALSE(v.ok());
    EXPECT_EQ(v.status().code(), StatusCode::kCorruption);
    EXPECT_EQ(v.status().message(), "embed: model file m.bin: checksum mismatch");
  }
  LoadingEmbedder other(HashEmbedder(16).Space(), []() -> Result<std::unique_ptr<Embedder>> {
    return std::unique_ptr<Embedder>(new HashEmbedder(32));
  });
  auto v = other.Embed({"x"}, EmbedPurpose::kQuery);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kInternal);
  EXPECT_NE(v.status().message().find("hash:fnv1a:32"), std::string::npos) << v.status().ToString();
}

}  // namespace
}  // namespace engram
