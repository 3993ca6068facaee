// Runs the engram binary as a child process for CLI tests, with its own
// ENGRAM_HOME and config, capturing exit code, stdout and stderr.
#ifndef ENGRAM_TESTS_CLI_RUNNER_H_
#define ENGRAM_TESTS_CLI_RUNNER_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_util.h"

extern char** environ;

namespace engram::testing {

// The first fact id in `out` (the first run of 24 lower-case hex
// characters), as `engram add` and `update` print it; empty when none.
inline std::string IdIn(const std::string& out) {
  for (size_t i = 0; i + 24 <= out.size(); ++i) {
    if (out.find_first_not_of("0123456789abcdef", i) >= i + 24) return out.substr(i, 24);
  }
  return "";
}

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class CliRunner {
 public:
  CliRunner() : home_(dir_.File("home")) {}

  const std::string& home() const { return home_; }
  // Adds NAME=VALUE to the child's environment (later calls win).
  void SetEnv(const std::string& name, const std::string& value) {
    extra_env_.push_back(name + "=" + value);
  }
  // Leaves NAME out of the child's environment, whatever set it.
  void UnsetEnv(const std::string& name) { extra_env_.push_back(name); }
  std::string File(const std::string& name) const { return dir_.File(name); }
  // Runs `binary` instead of the built engram, through `launcher` (a
  // command and its arguments, absolute path first, such as setpriv's)
  // when not empty.
  void SetBinary(const std::string& binary, std::vector<std::string> launcher = {}) {
    binary_ = binary;
    launcher_ = std::move(launcher);
  }
  std::string DbPath() const { return home_ + "/memory.db"; }

  // Starts engram with `args`; stdin from `stdin_path` (or /dev/null).
  pid_t Start(const std::vector<std::string>& args, const std::string& stdin_path = "/dev/null") {
    const std::string out = dir_.File("stdout"), err = dir_.File("stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, stdin_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const pid_t pid = Spawn(args, &actions);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }

  // A child whose stdin and stdout are pipes to the test; stderr goes to
  // the file Stderr() reads.
  struct Piped {
    pid_t pid = -1;
    int to_child = -1;    // the child's stdin
    int from_child = -1;  // the child's stdout
  };
  Piped StartPiped(const std::vector<std::string>& args) {
    int in[2], out[2];
    Piped p;
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) return p;
    const std::string err = dir_.File("stderr");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    p.pid = Spawn(args, &actions);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    p.to_child = in[1];
    p.from_child = out[0];
    return p;
  }
  std::string Stderr() const { return ReadFile(dir_.File("stderr")); }

  CliResult Wait(pid_t pid) {
    CliResult r;
    int status = 0;
    waitpid(pid, &status, 0);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = ReadFile(dir_.File("stdout"));
    r.err = ReadFile(dir_.File("stderr"));
    return r;
  }

  CliResult Run(const std::vector<std::string>& args, const std::string& stdin_path = "/dev/null") {
    return Wait(Start(args, stdin_path));
  }

 private:
  // Spawns the binary with `args`, this runner's environment and `actions`.
  pid_t Spawn(const std::vector<std::string>& args, const posix_spawn_file_actions_t* actions) {
    std::vector<std::string> env_strings = {"ENGRAM_HOME=" + home_,
                                            "ENGRAM_CONFIG=" + dir_.File("config.toml"),
                                            "HOME=" + dir_.path().string(), "PATH=/usr/bin:/bin"};
#ifdef ENGRAM_TEST_MODEL_FILE
    // The default provider, `local`, reads the model the build converted.
    env_strings.push_back("ENGRAM_EMBED_MODELS_DIR=" +
                          std::filesystem::path(ENGRAM_TEST_MODEL_FILE).parent_path().string());
#endif
    for (const std::string& e : extra_env_) {
      const bool unset = e.find('=') == std::string::npos;  // UnsetEnv
      const std::string name = unset ? e + "=" : e.substr(0, e.find('=') + 1);
      std::erase_if(env_strings, [&](const std::string& v) { return v.rfind(name, 0) == 0; });
      if (!unset) env_strings.push_back(e);
    }
    for (char** e = environ; *e; ++e) {
      const std::string v(*e);
      if (v.rfind("ASAN_", 0) == 0 || v.rfind("UBSAN_", 0) == 0 || v.rfind("LSAN_", 0) == 0) {
        env_strings.push_back(v);
      }
    }
    std::vector<std::string> argv_strings = launcher_;
    argv_strings.push_back(binary_);
    argv_strings.insert(argv_strings.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (auto& a : argv_strings) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    posix_spawn(&pid, argv_strings[0].c_str(), actions, nullptr, argv.data(), envp.data());
    return pid;
  }

  TempDir dir_;
  std::string home_;
  std::vector<std::string> extra_env_;
  std::string binary_ = ENGRAM_BINARY;
  std::vector<std::string> launcher_;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_CLI_RUNNER_H_
