#include "src/common/verified_stamp.h"

#include <time.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "src/common/private_files.h"

namespace engram {
namespace {

constexpr char kStampSuffix[] = ".verified";
constexpr char kStampHeader[] = "engram-verified 1";
// A file changed less than this long ago is not stamped: file times tick
// coarsely (a few ms, a second on some file systems), so a second change
// within the same tick would leave the stamp matching other bytes.
constexpr int64_t kSettledNs = 1'000'000'000;

int64_t NowNs() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

std::string StampLine(const FileContents::Stamp& stamp, uint64_t checksum) {
  return std::string(kStampHeader) + ' ' + stamp.ToString() + ' ' + std::to_string(checksum);
}

// Whether `path`'s stamp file records `stamp` and `checksum`.
bool StampMatches(const std::string& path, const FileContents::Stamp& stamp, uint64_t checksum) {
  std::ifstream in(path + kStampSuffix);
  std::string line;
  return in && std::getline(in, line) && line == StampLine(stamp, checksum);
}

}  // namespace

bool ChecksumVerified(const std::string& path, const FileContents::Stamp& stamp, uint64_t stored,
                      const std::function<uint64_t()>& checksum, bool full) {
  if (!full && StampMatches(path, stamp, stored)) return true;
  if (checksum() != stored) return false;
  WriteVerifiedStamp(path, stamp, stored);
  return true;
}

void WriteVerifiedStamp(const std::string& path, const FileContents::Stamp& stamp,
                        uint64_t checksum) {
  if (NowNs() - std::max(stamp.mtime_ns, stamp.ctime_ns) < kSettledNs) return;
  // Best effort: a directory this process cannot write leaves the file
  // unstamped.
  WriteFileAtomically(path + kStampSuffix, StampLine(stamp, checksum) + "\n").IgnoreError();
}

}  // namespace engram
