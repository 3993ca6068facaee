// What reading instead of mapping costs, for the two files engram once
// mapped and now reads (a mapped file truncated by another process kills
// the reader with SIGBUS):
//  - the database: a scope's vectors read out of SQLite with and without
//    a memory map (PRAGMA mmap_size; SqliteStoreOptions::mmap_bytes);
//  - the model file: read whole into memory of its own (FileContents, as
//    the local embedder loads it) against mapped with every page touched.
//
// Database: writes ROWS rows of 2 KiB blobs (a 512-d float32 vector each) to a fresh
// database in a temporary directory, checkpoints them into the file, then
// reads every row and copies its blob out, as loading a vector cache does,
// ROUNDS times with the map off and on in turn, each on a new connection
// with the file in the page cache. Model: the same, FILE read and mapped in
// turn ROUNDS times. Prints one "what<TAB>how<TAB>round<TAB>cpu_ms" line per
// pass. Not a test: nothing passes or fails on speed.
//
// Usage: map_or_read ROWS ROUNDS [FILE]
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "src/common/file_contents.h"

namespace {

double CpuMillis() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

bool Exec(sqlite3* db, const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) return true;
  std::fprintf(stderr, "map_or_read: %s: %s\n", sql.c_str(), error != nullptr ? error : "");
  sqlite3_free(error);
  return false;
}

// CPU ms to read every row and copy its blob out; -1 on an error.
double ReadAll(const std::string& path, bool mapped) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return -1;
  double ms = -1;
  if (Exec(db, mapped ? "PRAGMA mmap_size=1073741824" : "PRAGMA mmap_size=0")) {
    const double start = CpuMillis();
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT fact, vector FROM vectors", -1, &st, nullptr) == SQLITE_OK) {
      std::vector<float> vector(512);
      double sum = 0;
      while (sqlite3_step(st) == SQLITE_ROW) {
        std::memcpy(vector.data(), sqlite3_column_blob(st, 1),
                    std::min<size_t>(static_cast<size_t>(sqlite3_column_bytes(st, 1)),
                                     vector.size() * sizeof(float)));
        sum += vector[3];
      }
      sqlite3_finalize(st);
      ms = CpuMillis() - start + (sum == 0.5 ? 1e-9 : 0);  // keeps the copies
    }
  }
  sqlite3_close(db);
  return ms;
}

// CPU ms to bring `path` into memory and sum one byte per page: read whole
// (FileContents) or mapped; -1 on an error.
double LoadFile(const std::string& path, bool mapped) {
  const double start = CpuMillis();
  unsigned sum = 0;
  if (mapped) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat info {};
    if (fd < 0 || ::fstat(fd, &info) != 0) return -1;
    const auto size = static_cast<size_t>(info.st_size);
    void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (data == MAP_FAILED) return -1;
    for (size_t i = 0; i < size; i += 4096) sum += static_cast<const unsigned char*>(data)[i];
    ::munmap(data, size);
  } else {
    auto read = engram::FileContents::Read(path);
    if (!read.ok()) return -1;
    const std::string_view bytes = (*read)->Bytes();
    for (size_t i = 0; i < bytes.size(); i += 4096) sum += static_cast<unsigned char>(bytes[i]);
  }
  return CpuMillis() - start + (sum == 1 ? 1e-9 : 0);  // keeps the reads
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: map_or_read ROWS ROUNDS [FILE]\n");
    return 2;
  }
  const long rows = std::atol(argv[1]);
  const int rounds = std::atoi(argv[2]);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("map_or_read-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "vectors.db").string();
  sqlite3* db = nullptr;
  bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK && Exec(db, "PRAGMA journal_mode=WAL") &&
            Exec(db, "CREATE TABLE vectors(fact INTEGER PRIMARY KEY, vector BLOB NOT NULL)") &&
            Exec(db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < " +
                         std::to_string(rows) +
                         ") INSERT INTO vectors SELECT i, randomblob(2048) FROM n") &&
            Exec(db, "PRAGMA wal_checkpoint(TRUNCATE)");
  sqlite3_close(db);
  for (int round = 0; ok && round < rounds; ++round) {
    for (const bool mapped : {false, true}) {
      const double ms = ReadAll(path, mapped);
      ok = ms >= 0;
      std::printf("%ld vectors\t%s\t%d\t%.2f\n", rows, mapped ? "mapped" : "read", round, ms);
    }
  }
  for (int round = 0; ok && argc > 3 && round < rounds; ++round) {
    for (const bool mapped : {false, true}) {
      const double ms = LoadFile(argv[3], mapped);
      ok = ms >= 0;
      std::printf("file\t%s\t%d\t%.2f\n", mapped ? "mapped" : "read", round, ms);
    }
  }
  std::filesystem::remove_all(dir);
  return ok ? 0 : 1;
}
