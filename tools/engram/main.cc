// engram: the command-line tool. All work happens in the commands.
#include <iostream>

#include "tools/engram/cli.h"

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  engram::cli::Cli cli(std::cout, std::cerr);
  return cli.Run(argc, argv);
}
