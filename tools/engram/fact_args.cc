#include "tools/engram/fact_args.h"

#include <iostream>
#include <iterator>

#include "src/common/time_format.h"

namespace engram::cli {

void AddFactOptions(CLI::App* sub, FactArgs* args) {
  sub->add_option("-t,--tag", args->tags, "A tag (repeatable)");
  sub->add_option("--kind", args->kind, "fact, lesson, preference or any word (default fact)");
  sub->add_option("--source", args->source, "Where the fact came from");
  sub->add_option("-s,--scope", args->scope, "Scope (default 'default')");
  sub->add_option("--confidence", args->confidence, "0..1 (default 1)");
  sub->add_option("--meta", args->metadata, "Metadata as a JSON object");
  sub->add_option("--created-at", args->created_at, "ISO-8601 creation time (default now)");
  sub->add_option("--ttl", args->ttl,
                  "Expire after this long (30d, 12h, 2w): left out of search and list, removed "
                  "by engram gc");
}

Result<NewFact> MakeNewFact(const FactArgs& args) {
  NewFact fact;
  fact.content = args.text;
  if (fact.content == "-") fact.content.assign(std::istreambuf_iterator<char>(std::cin), {});
  fact.tags = args.tags;
  fact.kind = args.kind;
  fact.source = args.source;
  fact.scope = args.scope;
  fact.confidence = args.confidence;
  fact.metadata = args.metadata;
  if (!args.created_at.empty()) {
    auto t = ParseIso8601(args.created_at);
    if (!t.ok()) return InvalidArgument("--created-at: " + t.status().message());
    fact.created_at = *t;
  }
  if (!args.ttl.empty()) {
    auto span = ParseDuration(args.ttl);
    if (!span.ok()) return InvalidArgument("--ttl: " + span.status().message());
    fact.expires_at = SystemClock()->NowMillis() + *span;
  }
  return fact;
}

}  // namespace engram::cli
