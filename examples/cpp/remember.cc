// A C++ program on engram's library (engram/engine.h): remembers three facts
// in the store named on the command line and asks it one question, ranked
// as the CLI ranks with the embedded model.
#include <iostream>

#include <engram/embedder.h>
#include <engram/engine.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: remember STORE.db\n";
    return 2;
  }
  engram::EngineOptions options;  // the CLI's defaults for the embedded model
  options.db_path = argv[1];
  auto embedder = engram::CreateEmbedder("local", {});
  if (embedder.ok()) {
    options.embedder = std::move(*embedder);
  } else {
    std::cerr << "remember: warning: " << embedder.status().message() << "\n";
  }
  auto engine = engram::Engine::Open(options);
  if (!engine.ok()) {
    std::cerr << "remember: " << engine.status().message() << "\n";
    return 1;
  }

  for (const char* text : {"Maya is allergic to peanuts", "The car is due for its MOT in March",
                           "Standup moved to 9:30 on Mondays"}) {
    engram::NewFact fact;
    fact.content = text;
    if (auto added = (*engine)->Add(fact); !added.ok()) {
      std::cerr << "remember: " << added.status().message() << "\n";
      return 1;
    }
  }

  engram::SearchOptions search;
  search.k = 1;
  auto response = (*engine)->Search("what can't Maya eat?", search);
  if (!response.ok()) {
    std::cerr << "remember: " << response.status().message() << "\n";
    return 1;
  }
  for (const engram::SearchHit& hit : response->hits) {
    std::cout << hit.score << "  " << hit.fact.content << "\n";
  }
  return 0;
}
