// engram context attach|list|search|refresh|detach: files the user attaches
// (a project's sources, notes, docs), split into line windows and searched
// with BM25 and, when an embedder loads, their vectors (engram/context.h).
#include <filesystem>
#include <iomanip>
#include <sstream>

#include <nlohmann/json.hpp>

#include "src/common/time_format.h"
#include "tools/engram/cli.h"

namespace engram::cli {
namespace {

constexpr size_t kPreviewLines = 2;
constexpr size_t kPreviewBytes = 100;

std::string Fixed(double v) {
  std::ostringstream out;
  out << std::fixed << std::setprecision(4) << v;
  return out.str();
}

// `path` relative to the working directory when it lies below it.
std::string Shown(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return path;
  const std::string rel = std::filesystem::path(path).lexically_relative(cwd).string();
  return rel.empty() || rel.rfind("..", 0) == 0 ? path : rel;
}

// The first non-blank lines of a chunk, each cut to kPreviewBytes at a
// UTF-8 boundary.
std::vector<std::string> Preview(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (out.size() < kPreviewLines && std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos) continue;
    line = line.substr(first);
    if (line.size() > kPreviewBytes) {
      size_t cut = kPreviewBytes;
      while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
      line = line.substr(0, cut) + "...";
    }
    out.push_back(line);
  }
  return out;
}

nlohmann::json SignalJson(const SignalValue& s) {
  return {{"present", s.present}, {"raw", s.raw}, {"normalized", s.normalized}};
}

// Notes and warnings of an attach or refresh, on stderr.
void PrintNotes(Cli& cli, const AttachReport& r, bool has_embedder) {
  for (const SkippedFile& s : r.skipped) {
    cli.err() << "engram: note: skipped " << Shown(s.path) << ": " << s.reason << "\n";
  }
  for (const std::string& w : r.warnings) cli.err() << "engram: warning: " << w << "\n";
  if (has_embedder && r.unembedded > 0) {
    cli.err() << "engram: note: " << r.unembedded
              << " chunk(s) have no vector yet; lexical search finds them and the next "
                 "refresh embeds them\n";
  }
}

void PrintEmbedding(Cli& cli, const AttachReport& r, bool has_embedder) {
  if (!has_embedder) {
    cli.out() << "keyword-only (no embedding provider): no vectors\n";
    return;
  }
  cli.out() << "embedded " << r.embedded << " chunk text(s) in " << r.embed_calls << " call(s); "
            << r.reused << " reused\n";
}

void RegisterAttach(CLI::App& context, Cli& cli) {
  struct Args {
    std::vector<std::string> paths;
    std::string name;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = context.add_subcommand("attach", "Attach files or directories for search");
  sub->footer(
      "Directories are walked honouring .gitignore files; binary files, files over\n"
      "context.max_file_bytes and symlinked directories are skipped with a note.\n"
      "Example: engram context attach ./src ./docs --name project");
  sub->add_option("paths", args->paths, "Files and directories")->required();
  sub->add_option("--name", args->name, "Name of the attachment (default: the first path's name)");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto engine = cli.OpenEngine(/*create=*/true, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    const bool has_embedder = (*engine)->options().embedder != nullptr;
    auto report = (*engine)->Attach({args->paths, args->name});
    if (!report.ok()) return cli.Fail(report.status());
    PrintNotes(cli, *report, has_embedder);
    cli.out() << "attached '" << report->name << "': " << report->files << " file(s), "
              << report->chunks << " chunk(s)\n";
    PrintEmbedding(cli, *report, has_embedder);
    return kExitOk;
  });
}

void RegisterListAttachments(CLI::App& context, Cli& cli) {
  CLI::App* sub = context.add_subcommand("list", "List the attachments");
  cli.OnRun(sub, [&cli]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto list = (*engine)->Attachments();
    if (!list.ok()) return cli.Fail(list.status());
    if (list->empty()) cli.err() << "no attachments; add one with 'engram context attach PATH'\n";
    for (const Attachment& a : *list) {
      cli.out() << a.name << "  " << a.files << " file(s)  " << a.chunks << " chunk(s)  attached "
                << FormatIso8601(a.created_at) << "  refreshed " << FormatIso8601(a.refreshed_at)
                << "\n";
      for (const std::string& root : a.roots) cli.out() << "  " << root << "\n";
    }
    return kExitOk;
  });
}

void RegisterSearchAttachments(CLI::App& context, Cli& cli) {
  struct Args {
    std::string query;
    size_t k = 8;
    bool json = false;
    std::vector<std::string> attachments;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = context.add_subcommand("search", "Find the attached text that answers a query");
  sub->footer("Example: engram context search \"how are requests signed\" -k 3");
  sub->add_option("query", args->query, "What to look for")->required();
  sub->add_option("-k", args->k, "Number of results (default 8)")->check(CLI::Range(1, 1000));
  sub->add_option("-a,--attachment", args->attachments,
                  "Search only this attachment (repeatable; default: all)");
  sub->add_flag("--json", args->json, "Print one JSON object with the chunks");
  cli.OnRun(sub, [&cli, args]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    ContextSearchOptions options;
    options.k = args->k;
    options.attachments = args->attachments;
    auto response = (*engine)->SearchContext(args->query, options);
    if (!response.ok()) return cli.Fail(response.status());
    for (const auto& w : response->warnings) cli.err() << "engram: warning: " << w << "\n";
    if (!response->semantic && response->warnings.empty()) {
      cli.err() << "engram: note: lexical only (no embedding provider)\n";
    }
    if (args->json) {
      nlohmann::json hits = nlohmann::json::array();
      for (const ContextHit& h : response->hits) {
        hits.push_back(
            {{"attachment", h.attachment},
             {"path", h.path},
             {"start_line", h.start_line},
             {"end_line", h.end_line},
             {"score", h.score},
             {"signals",
              {{"lexical", SignalJson(h.lexical)}, {"semantic", SignalJson(h.semantic)}}},
             {"weights", {{"semantic", h.weights.semantic}, {"lexical", h.weights.lexical}}},
             {"text", h.text}});
      }
      nlohmann::json out = {{"query", args->query},
                            {"terms", response->query_terms},
                            {"semantic", response->semantic},
                            {"candidates", response->candidates},
                            {"unembedded", response->unembedded},
                            {"warnings", response->warnings},
                            {"hits", hits}};
      cli.out() << out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
      return kExitOk;
    }
    if (response->hits.empty()) {
      cli.err() << "nothing found\n";
      return kExitOk;
    }
    size_t rank = 0;
    for (const ContextHit& h : response->hits) {
      cli.out() << std::right << std::setw(2) << ++rank << ". " << Fixed(h.score) << "  "
                << Shown(h.path) << ":" << h.start_line << "-" << h.end_line << "\n";
      for (const std::string& line : Preview(h.text)) cli.out() << "      " << line << "\n";
    }
    return kExitOk;
  });
}

void RegisterRefresh(CLI::App& context, Cli& cli) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = context.add_subcommand(
      "refresh", "Re-read changed files, add new ones, drop deleted ones; embed what is missing");
  sub->add_option("name", *name, "Attachment (default: all)");
  cli.OnRun(sub, [&cli, name]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false, Cli::Embedding::kIfAvailable);
    if (!engine.ok()) return cli.Fail(engine.status());
    const bool has_embedder = (*engine)->options().embedder != nullptr;
    auto reports = (*engine)->RefreshAttachments(*name);
    if (!reports.ok()) return cli.Fail(reports.status());
    if (reports->empty()) cli.err() << "no attachments to refresh\n";
    for (const AttachReport& r : *reports) {
      PrintNotes(cli, r, has_embedder);
      cli.out() << "refreshed '" << r.name << "': " << r.files_changed << " changed, "
                << r.files_added << " added, " << r.files_removed << " removed, "
                << r.files_unchanged << " unchanged; " << r.files << " file(s), " << r.chunks
                << " chunk(s)\n";
      PrintEmbedding(cli, r, has_embedder);
    }
    return kExitOk;
  });
}

void RegisterDetach(CLI::App& context, Cli& cli) {
  auto name = std::make_shared<std::string>();
  CLI::App* sub = context.add_subcommand("detach", "Remove an attachment and its chunks");
  sub->add_option("name", *name, "Attachment")->required();
  cli.OnRun(sub, [&cli, name]() -> int {
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    auto detached = (*engine)->Detach(*name);
    if (!detached.ok()) return cli.Fail(detached.status());
    cli.out() << "detached '" << detached->name << "' (" << detached->files << " file(s), "
              << detached->chunks << " chunk(s))\n";
    return kExitOk;
  });
}

}  // namespace

void RegisterContext(CLI::App& app, Cli& cli) {
  CLI::App* context =
      app.add_subcommand("context", "Attached files: attach, list, search, refresh, detach");
  context->require_subcommand(1);
  RegisterAttach(*context, cli);
  RegisterListAttachments(*context, cli);
  RegisterSearchAttachments(*context, cli);
  RegisterRefresh(*context, cli);
  RegisterDetach(*context, cli);
}

}  // namespace engram::cli
