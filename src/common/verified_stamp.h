// A record, beside a large file engram checks by a checksum (the model
// file, a scope's vector snapshot), that the checksum was verified over
// every byte, so a later process need not read all of it again to check it
// (the 48 MB model, about 11 ms here; a 20 MB snapshot, about 10 ms; on
// every start of a one-shot command). `PATH.verified` holds one line:
//
//   engram-verified 1 DEVICE INODE SIZE MTIME_NS CTIME_NS CHECKSUM
//
// the FileContents::Stamp of the file as verified and the checksum its
// trailer declares. A process that opens the file and finds the same stamp
// and trailer trusts the bytes; any rewrite or replacement of the file
// changes its ctime (which no user can set) and so its stamp, and the next
// reader verifies it whole and records the new stamp. What a stamp does not
// catch is a change of the bytes on disk underneath the file system (bit
// rot); a full check on demand (UseLiteModelReadOptions::full_check, `engram
// check`) does, for the model.
//
// Writing is best effort: the stamp is written through a temporary file
// renamed into place, mode 0600, and a directory the process cannot write
// (a system-wide install) simply leaves the file unstamped, verified whole
// by every process. A file changed less than a second before is not
// stamped yet: file times tick coarsely, and a second change within one
// tick would leave an earlier stamp matching. Thread-safe; processes may
// race to write the same stamp.
#ifndef ENGRAM_SRC_COMMON_VERIFIED_STAMP_H_
#define ENGRAM_SRC_COMMON_VERIFIED_STAMP_H_

#include <cstdint>
#include <functional>
#include <string>

#include "src/common/file_contents.h"

namespace engram {

// Whether the file at `path`, as `stamp` describes it, holds the checksum
// `stored` its trailer declares: at once when its stamp file records that
// (unless `full`); else `checksum()` is computed over its bytes and
// compared, and a match is stamped for the next reader.
bool ChecksumVerified(const std::string& path, const FileContents::Stamp& stamp, uint64_t stored,
                      const std::function<uint64_t()>& checksum, bool full = false);

// Records that the file with `stamp` and `checksum` was verified whole,
// unless it changed less than a second ago.
void WriteVerifiedStamp(const std::string& path, const FileContents::Stamp& stamp,
                        uint64_t checksum);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_VERIFIED_STAMP_H_
