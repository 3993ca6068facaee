// engram forget: remove facts by id, by tag or a whole scope. On a terminal
// it asks first unless --yes; off a terminal, forgetting a whole scope
// needs --yes, since there is nobody to ask.
#include <iostream>

#include "tools/engram/cli.h"

namespace engram::cli {
namespace {

bool Confirm(Cli& cli, const std::string& question) {
  cli.err() << question << " [y/N] " << std::flush;
  std::string answer;
  if (!std::getline(std::cin, answer)) return false;
  return answer == "y" || answer == "Y" || answer == "yes";
}

}  // namespace

void RegisterForget(CLI::App& app, Cli& cli) {
  struct Args {
    std::vector<std::string> ids;
    std::string tag;
    bool all = false;
    std::string scope = kDefaultScope;
    bool yes = false;
    std::string history;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("forget", "Forget facts by id, by tag, or a whole scope");
  sub->footer(
      "Examples: engram forget 3f2a1b9c\n"
      "          engram forget --tag obsolete --yes\n"
      "          engram forget --all --scope scratch --yes");
  sub->add_option("ids", args->ids, "Fact ids or unique prefixes");
  sub->add_option("-t,--tag", args->tag, "Forget every fact with this tag");
  sub->add_flag("--all", args->all, "Forget every fact of the scope");
  sub->add_option("-s,--scope", args->scope, "Scope (default 'default')");
  sub->add_flag("-y,--yes", args->yes, "Do not ask for confirmation");
  sub->add_option("--history", args->history,
                  "When a fact replaced older versions: restore (the newest becomes current "
                  "again) or delete (forget them too); without it such a fact is not forgotten")
      ->check(CLI::IsMember({"restore", "delete"}));
  cli.OnRun(sub, [&cli, args]() -> int {
    ForgetRequest request;
    request.scope = args->scope;
    request.ids = args->ids;
    request.tag = args->tag;
    request.whole_scope = args->all;
    if (args->history == "restore") request.history = ForgetHistory::kRestore;
    if (args->history == "delete") request.history = ForgetHistory::kDelete;
    const int chosen = !request.ids.empty() + !request.tag.empty() + request.whole_scope;
    if (chosen != 1) return cli.UsageError("forget: give ids, --tag or --all (exactly one)");
    auto engine = cli.OpenEngine(/*create=*/false);
    if (!engine.ok()) return cli.Fail(engine.status());
    const bool ask = !args->yes && IsTerminal(0);
    if (request.whole_scope && !args->yes && !IsTerminal(0)) {
      return cli.UsageError("forget: --all needs --yes when not run on a terminal");
    }
    if (ask) {
      std::string what;
      if (request.whole_scope) {
        what = "every fact in scope '" + request.scope + "'";
      } else if (!request.tag.empty()) {
        ListOptions list;
        list.scopes = {request.scope};
        list.tag = request.tag;
        list.limit = 0;
        auto facts = (*engine)->List(list);
        if (!facts.ok()) return cli.Fail(facts.status());
        what = std::to_string(facts->size()) + " fact(s) tagged '" + request.tag + "'";
      } else {
        what = std::to_string(request.ids.size()) + " fact(s)";
      }
      if (!Confirm(cli, "Forget " + what + "?")) {
        cli.err() << "engram: forget: cancelled; nothing removed\n";
        return kExitError;
      }
    }
    auto removed = (*engine)->Forget(request);
    if (!removed.ok()) return cli.Fail(removed.status());
    cli.out() << "forgot " << *removed << " fact(s)\n";
    return kExitOk;
  });
}

}  // namespace engram::cli
