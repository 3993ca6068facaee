#include "src/common/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace engram {
namespace {

Status Failed(const std::string& what, const std::string& path) {
  return IOError("map file " + path + ": " + what + ": " + std::strerror(errno));
}

}  // namespace

Result<std::unique_ptr<MappedFile>> MappedFile::Open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return NotFound("map file " + path + ": no such file");
    return Failed("cannot open", path);
  }
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    Status status = Failed("cannot size", path);
    ::close(fd);
    return status;
  }
  const size_t size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    ::close(fd);
    return std::unique_ptr<MappedFile>(new MappedFile(nullptr, 0));
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  if (data == MAP_FAILED) {
    Status status = Failed("cannot map", path);
    ::close(fd);
    return status;
  }
  ::close(fd);  // the map keeps the file open
  return std::unique_ptr<MappedFile>(new MappedFile(static_cast<const char*>(data), size));
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<char*>(data_), size_);
}

}  // namespace engram
