#include "src/vindex/index_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "src/common/private_files.h"

namespace engram {
namespace {

constexpr uint64_t kMultiplier = 0x9e3779b97f4a7c15ULL;

uint64_t Mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

Status ErrnoStatus(const char* operation, const std::string& path, int error) {
  std::string message =
      std::string("vindex: ") + operation + ": " + path + ": " + std::strerror(error);
  if (error == ENOENT) return NotFound(std::move(message));
  return IOError(std::move(message));
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  // Closes now, reporting the error close() gives (a delayed write error).
  int Close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

// Reads the whole file at `path`, handing each piece to `sink`.
template <typename Sink>
Status ReadPieces(const char* operation, const std::string& path, Sink&& sink) {
  const Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return ErrnoStatus(operation, path, errno);
  std::vector<char> buffer(size_t{1} << 20);
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer.data(), buffer.size());
    if (got < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus(operation, path, errno);
    }
    if (got == 0) return Status::OK();
    sink(std::string_view(buffer.data(), static_cast<size_t>(got)));
  }
}

}  // namespace

void Checksum::Block(const char* block) {
  for (size_t lane = 0; lane < lanes_.size(); ++lane) {
    uint64_t word = 0;
    std::memcpy(&word, block + (lane * sizeof(uint64_t)), sizeof(word));
    uint64_t x = (lanes_[lane] ^ word) * kMultiplier;
    lanes_[lane] = x ^ (x >> 29);
  }
}

void Checksum::Update(std::string_view bytes) {
  total_bytes_ += bytes.size();
  if (pending_bytes_ > 0) {
    const size_t take = std::min(kBlockBytes - pending_bytes_, bytes.size());
    std::memcpy(pending_.data() + pending_bytes_, bytes.data(), take);
    pending_bytes_ += take;
    bytes.remove_prefix(take);
    if (pending_bytes_ < kBlockBytes) return;
    Block(pending_.data());
    pending_bytes_ = 0;
  }
  while (bytes.size() >= kBlockBytes) {
    Block(bytes.data());
    bytes.remove_prefix(kBlockBytes);
  }
  std::memcpy(pending_.data(), bytes.data(), bytes.size());
  pending_bytes_ = bytes.size();
}

uint64_t Checksum::Digest() const {
  Checksum last = *this;
  std::array<char, kBlockBytes> tail{};
  std::memcpy(tail.data(), pending_.data(), pending_bytes_);
  last.Block(tail.data());
  uint64_t digest = Mix(total_bytes_);
  for (const uint64_t lane : last.lanes_) digest = Mix(digest ^ lane) * kMultiplier;
  return Mix(digest);
}

uint64_t ChecksumOf(std::string_view bytes) {
  Checksum checksum;
  checksum.Update(bytes);
  return checksum.Digest();
}

Result<FileDigest> DigestFile(const std::string& path) {
  Checksum checksum;
  FileDigest digest;
  ENGRAM_RETURN_IF_ERROR(ReadPieces("read", path, [&](std::string_view piece) {
    checksum.Update(piece);
    digest.bytes += piece.size();
  }));
  digest.checksum = checksum.Digest();
  return digest;
}

Result<uint64_t> FileBytes(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return ErrnoStatus("stat", path, errno);
  if (!S_ISREG(info.st_mode)) return IOError("vindex: stat: " + path + ": not a regular file");
  return static_cast<uint64_t>(info.st_size);
}

Result<std::string> ReadFileBytes(const std::string& path) {
  std::string bytes;
  ENGRAM_RETURN_IF_ERROR(
      ReadPieces("read", path, [&](std::string_view piece) { bytes.append(piece); }));
  return bytes;
}

}  // namespace engram
