// Files and directories only their owner can open (docs/ARCHITECTURE.md,
// "Private by default"). Memories are private data: every directory engram
// creates for a store is made 0700 and every file 0600, whatever the umask.
// What already exists keeps its mode: engram never changes the permissions
// of a file or directory it did not create. Thread-safe.
#ifndef ENGRAM_SRC_COMMON_PRIVATE_FILES_H_
#define ENGRAM_SRC_COMMON_PRIVATE_FILES_H_

#include <string>

#include "engram/status.h"

namespace engram {

// Mode of what engram creates.
inline constexpr unsigned kPrivateDirectoryMode = 0700;
inline constexpr unsigned kPrivateFileMode = 0600;

// Creates the missing directories of `dir` (parents first), each 0700.
// IOError naming the directory that could not be made.
Status CreatePrivateDirectories(const std::string& dir);

// Creates `path` as an empty file, 0600, when nothing is there; sets
// `*created` (when given) to whether it did. An existing file is left
// untouched. IOError naming the path when it cannot be created.
Status CreatePrivateFile(const std::string& path, bool* created = nullptr);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_PRIVATE_FILES_H_
