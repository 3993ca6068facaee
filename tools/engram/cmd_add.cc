// engram add TEXT: store one fact (or merge into the same text).
#include <iostream>
#include <iterator>

#include "src/common/time_format.h"
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterAdd(CLI::App& app, Cli& cli) {
  struct Args {
    std::string text;
    std::vector<std::string> tags;
    std::string kind = kDefaultKind;
    std::string source;
    std::string scope = kDefaultScope;
    double confidence = 1.0;
    std::string metadata = "{}";
    std::string created_at;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("add", "Add a fact (text '-' reads standard input)");
  sub->footer(
      "Example: engram add \"Prefers tabs over spaces in Go code\" --tag style --kind preference");
  sub->add_option("text", args->text, "The fact's text")->required();
  sub->add_option("-t,--tag", args->tags, "A tag (repeatable)");
  sub->add_option("--kind", args->kind, "fact, lesson, preference or any word (default fact)");
  sub->add_option("--source", args->source, "Where the fact came from");
  sub->add_option("-s,--scope", args->scope, "Scope (default 'default')");
  sub->add_option("--confidence", args->confidence, "0..1 (default 1)");
  sub->add_option("--meta", args->metadata, "Metadata as a JSON object");
  sub->add_option("--created-at", args->created_at, "ISO-8601 creation time (default now)");
  cli.OnRun(sub, [&cli, args]() -> int {
    NewFact fact;
    fact.content = args->text;
    if (fact.content == "-") {
      fact.content.assign(std::istreambuf_iterator<char>(std::cin), {});
    }
    fact.tags = args->tags;
    fact.kind = args->kind;
    fact.source = args->source;
    fact.scope = args->scope;
    fact.confidence = args->confidence;
    fact.metadata = args->metadata;
    if (!args->created_at.empty()) {
      auto t = ParseIso8601(args->created_at);
      if (!t.ok()) return cli.UsageError("add: --created-at: " + t.status().message());
      fact.created_at = *t;
    }
    auto engine = cli.OpenEngine(/*create=*/true, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto outcome = (*engine)->Add(fact);
    if (!outcome.ok()) return cli.Fail(outcome.status());
    for (const auto& w : outcome->warnings) cli.err() << "engram: warning: " << w << "\n";
    cli.out() << (outcome->created ? "added " : "merged into ") << outcome->fact.id << "\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
