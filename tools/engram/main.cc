// engram: the command-line tool. All work happens in the commands.
#include <iostream>

#include "tools/engram/cli.h"
#include "tools/engram/heap_pages.h"

int main(int argc, char** argv) {
#ifdef ENGRAM_HEAP_IN_LARGE_PAGES
  engram::cli::ReserveHeapInLargePages();
#endif
  std::ios::sync_with_stdio(false);
  engram::cli::Cli cli(std::cout, std::cerr);
  return cli.Run(argc, argv);
}
