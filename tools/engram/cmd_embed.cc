// engram embed TEXT...: the vectors of the active embedding space, as a
// search (or, with --document, a stored fact) gets them: one per text, or
// one per window of a long text in a windowed space's documents; each unit
// length. No store is opened.
#include <charconv>

#include <nlohmann/json.hpp>

#include "src/vindex/vector_math.h"
#include "tools/engram/cli.h"

namespace engram::cli {
namespace {

// The shortest decimal that reads back as `v`.
std::string FloatText(float v) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return error == std::errc() ? std::string(buffer, end) : std::string("nan");
}

}  // namespace

void RegisterEmbed(CLI::App& app, Cli& cli) {
  struct Args {
    std::vector<std::string> texts;
    bool document = false;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "embed", "Print the vectors of the configured embedding space for each text");
  sub->footer(
      "Each vector is unit length, as search uses it. Text output: one line per vector, the\n"
      "text's number (from 1) and then its floats. Example: engram embed \"vitamin D\" --json");
  sub->add_option("text", args->texts, "Texts to embed")->required();
  sub->add_flag("--document", args->document,
                "Embed as a stored fact is (default: as a search query)");
  sub->add_flag("--json", args->json,
                "As one JSON object: space, dimension, purpose and each text's vectors");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    Cli::ForOneShot(&*config);
    auto embedder = cli.LoadEmbedder(*config, Cli::Embedding::kRequired);
    if (!embedder.ok()) return cli.Fail(embedder.status());
    if (!*embedder) {
      return cli.Fail(FailedPrecondition(
          "embed: no embedding provider is configured (embed.provider is null)"));
    }
    const Embedder& e = **embedder;
    const EmbeddingSpace& space = e.Space();
    const EmbedPurpose purpose = args->document ? EmbedPurpose::kDocument : EmbedPurpose::kQuery;
    auto vectors = e.Embed(args->texts, purpose);
    if (!vectors.ok()) return cli.Fail(vectors.status());
    if (vectors->size() != args->texts.size()) {
      return cli.Fail(Unavailable("embed: " + space.Key() + " returned " +
                                  std::to_string(vectors->size()) + " vectors for " +
                                  std::to_string(args->texts.size()) + " texts"));
    }
    const size_t windows = args->document ? space.MaxVectorsPerDocument() : 1;
    for (size_t i = 0; i < vectors->size(); ++i) {
      Status normal = NormalizeWindowsInPlace((*vectors)[i], space.dimension, windows);
      if (!normal.ok()) {
        return cli.Fail(normal.WithContext("embed: text " + std::to_string(i + 1)));
      }
    }
    if (args->json) {
      nlohmann::json out;
      out["space"] = space.Key();
      out["dimension"] = space.dimension;
      out["purpose"] = args->document ? "document" : "query";
      nlohmann::json texts = nlohmann::json::array();
      for (size_t i = 0; i < vectors->size(); ++i) {
        nlohmann::json each = nlohmann::json::array();
        const std::vector<float>& v = (*vectors)[i];
        for (size_t at = 0; at < v.size(); at += space.dimension) {
          each.push_back(
              std::vector<float>(v.begin() + static_cast<std::ptrdiff_t>(at),
                                 v.begin() + static_cast<std::ptrdiff_t>(at + space.dimension)));
        }
        texts.push_back({{"text", args->texts[i]}, {"vectors", std::move(each)}});
      }
      out["texts"] = std::move(texts);
      cli.out() << out.dump() << "\n";
      return kExitOk;
    }
    for (size_t i = 0; i < vectors->size(); ++i) {
      const std::vector<float>& v = (*vectors)[i];
      for (size_t at = 0; at < v.size(); at += space.dimension) {
        cli.out() << (i + 1);
        for (size_t c = at; c < at + space.dimension; ++c) cli.out() << ' ' << FloatText(v[c]);
        cli.out() << "\n";
      }
    }
    return kExitOk;
  });
}

}  // namespace engram::cli
