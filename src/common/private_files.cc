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

Result<PrivateFileWriter> PrivateFileWriter::Open(const std::string& path) {
  static std::atomic<uint64_t> next_temp{0};
  std::string temp_path =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(next_temp.fetch_add(1));
  const int fd =
      ::open(temp_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, kPrivateFileMode);
  if (fd < 0) return WriteFailed(temp_path, errno);
  return PrivateFileWriter(path, std::move(temp_path), fd);
}

PrivateFileWriter::PrivateFileWriter(PrivateFileWriter&& other) noexcept
    : path_(std::move(other.path_)),
      temp_path_(std::exchange(other.temp_path_, std::string())),
      fd_(std::exchange(other.fd_, -1)),
      written_(std::exchange(other.written_, 0)),
      handed_to_disk_(std::exchange(other.handed_to_disk_, 0)) {}

PrivateFileWriter& PrivateFileWriter::operator=(PrivateFileWriter&& other) noexcept {
  if (this != &other) {
    Discard();
    path_ = std::move(other.path_);
    temp_path_ = std::exchange(other.temp_path_, std::string());
    fd_ = std::exchange(other.fd_, -1);
    written_ = std::exchange(other.written_, 0);
    handed_to_disk_ = std::exchange(other.handed_to_disk_, 0);
  }
  return *this;
}

PrivateFileWriter::~PrivateFileWriter() { Discard(); }

void PrivateFileWriter::Discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_path_.empty()) std::remove(temp_path_.c_str());
  temp_path_.clear();
}

Status PrivateFileWriter::Append(std::string_view bytes) {
  if (fd_ < 0) return FailedPrecondition("write file " + path_ + ": the writer is spent");
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd_, bytes.data(), bytes.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      const std::string temp_path = temp_path_;
      Discard();
      return WriteFailed(temp_path, error);
    }
    bytes.remove_prefix(static_cast<size_t>(wrote));
    written_ += static_cast<uint64_t>(wrote);
  }
  WriteBehind();
  return Status::OK();
}

void PrivateFileWriter::WriteBehind() {
#if defined(__linux__)
  // Errors are left to Commit's fsync, which reports every one.
  while (written_ - handed_to_disk_ >= kWriteBehindBytes) {
    const auto window = static_cast<off_t>(kWriteBehindBytes);
    const auto start = static_cast<off_t>(handed_to_disk_);
    ::sync_file_range(fd_, start, window, SYNC_FILE_RANGE_WRITE);
    if (start >= window) {
      ::sync_file_range(
          fd_, start - window, window,
          SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
    }
    handed_to_disk_ += kWriteBehindBytes;
  }
#endif
}

Status PrivateFileWriter::Commit() {
  if (fd_ < 0) return FailedPrecondition("write file " + path_ + ": the writer is spent");
  const std::string temp_path = temp_path_;
  const bool synced = ::fsync(fd_) == 0;
  int error = errno;
  const bool closed = ::close(fd_) == 0;
  if (synced) error = errno;
  fd_ = -1;
  if (!synced || !closed) {
    Discard();
    return WriteFailed(temp_path, error);
  }
  temp_path_.clear();  // RenameFile removes it on failure
  return RenameFile(temp_path, path_);
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  ENGRAM_ASSIGN_OR_RETURN(PrivateFileWriter writer, PrivateFileWriter::Open(path));
  ENGRAM_RETURN_IF_ERROR(writer.Append(bytes));
  return writer.Commit();
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
