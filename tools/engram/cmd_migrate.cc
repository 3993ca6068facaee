// engram migrate --to DEST: copy the configured store into another, a
// SQLite file or a PostgreSQL database (include/engram/migrate.h).
#include <memory>
#include <string>

#include "engram/migrate.h"
#include "src/common/url_for_message.h"
#include "src/store/postgres/pg_connection.h"
#include "tools/engram/cli.h"

namespace engram::cli {

void RegisterMigrate(CLI::App& app, Cli& cli) {
  CLI::App* sub = app.add_subcommand(
      "migrate",
      "Copy the store into another: facts with their history, vectors of every space, the HyDE "
      "cache, attached files");
  auto to = std::make_shared<std::string>();
  sub->add_option("--to", *to,
                  "Where to copy: a postgresql:// URL or a SQLite file path; it must hold no fact")
      ->required();
  sub->footer(
      "The store copied is the configured one (--db, store.url). Attached files come too, with\n"
      "their chunks and vectors.\n"
      "Example: engram migrate --to postgresql://engram@db.internal/memory\n"
      "         ENGRAM_STORE_URL=postgresql://engram@db.internal/memory engram migrate "
      "--to ~/memory.db");
  cli.OnRun(sub, [&cli, to]() -> int {
    auto config = cli.Config();
    if (!config.ok()) return cli.Fail(config.status());
    EngineOptions from = config->engine;
    EngineOptions dest = config->engine;
    if (IsPostgresUrl(*to)) {
      dest.store_url = *to;
    } else {
      dest.store_url.clear();
      dest.db_path = *to;
    }
    if (dest.store_url == from.store_url &&
        (!dest.store_url.empty() || dest.db_path == from.db_path)) {
      return cli.UsageError("migrate: --to names the store being copied");
    }
    auto report = MigrateStore(from, dest);
    if (!report.ok()) return cli.Fail(report.status());
    for (const std::string& warning : report->warnings) cli.err() << "engram: " << warning << "\n";
    cli.out() << "copied " << report->facts << " fact(s), " << report->version_links
              << " version link(s), " << report->vectors << " vector(s) in " << report->spaces
              << " space(s), " << report->hypotheses << " cached hypothes"
              << (report->hypotheses == 1 ? "is" : "es") << ", " << report->attachments
              << " attachment(s) with " << report->chunks << " chunk(s) and "
              << report->chunk_vectors << " chunk vector(s) to "
              << (dest.store_url.empty() ? dest.db_path : UrlForMessage(dest.store_url)) << "\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
