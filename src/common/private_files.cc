#include "src/common/private_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace engram {

Status CreatePrivateDirectories(const std::string& dir) {
  // The missing directories, innermost first.
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
       !p.empty() && !std::filesystem::exists(p, ec); p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), kPrivateDirectoryMode) != 0) {
      if (errno == EEXIST) continue;  // made meanwhile by another process
      return IOError("cannot create directory '" + it->string() + "': " + std::strerror(errno));
    }
    // The umask can only take bits away; chmod makes the mode exact.
    if (::chmod(it->c_str(), kPrivateDirectoryMode) != 0) {
      return IOError("cannot set the mode of '" + it->string() + "': " + std::strerror(errno));
    }
  }
  return Status::OK();
}

Status CreatePrivateFile(const std::string& path, bool* created) {
  if (created != nullptr) *created = false;
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) {
    if (errno == EEXIST) return Status::OK();
    return IOError("cannot create '" + path + "': " + std::strerror(errno));
  }
  const bool exact = ::fchmod(fd, kPrivateFileMode) == 0;
  const int error = errno;
  ::close(fd);
  if (!exact) return IOError("cannot set the mode of '" + path + "': " + std::strerror(error));
  if (created != nullptr) *created = true;
  return Status::OK();
}

namespace {

Status WriteFailed(const std::string& path, int error) {
  std::string message = "write file " + path + ": " + std::strerror(error);
  return error == ENOENT ? NotFound(std::move(message)) : IOError(std::move(message));
}

}  // namespace

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  static std::atomic<uint64_t> next_temp{0};
  const std::string temp_path =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(next_temp.fetch_add(1));
  const int fd =
      ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return WriteFailed(temp_path, errno);
  const auto fail = [&](int error) {
    ::close(fd);
    std::remove(temp_path.c_str());
    return WriteFailed(temp_path, error);
  };
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return fail(errno);
    }
    bytes.remove_prefix(static_cast<size_t>(wrote));
  }
  if (::fsync(fd) != 0) return fail(errno);
  if (::close(fd) != 0) {
    const int error = errno;
    std::remove(temp_path.c_str());
    return WriteFailed(temp_path, error);
  }
  return RenameFile(temp_path, path);
}

Status RenameFile(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    const int error = errno;
    std::remove(from.c_str());
    return IOError("rename " + from + " to " + to + ": " + std::strerror(error));
  }
  return Status::OK();
}

}  // namespace engram
