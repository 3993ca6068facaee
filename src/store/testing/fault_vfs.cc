#include "src/store/testing/fault_vfs.h"

#include <atomic>
#include <cstring>
#include <mutex>

namespace engram::testing {
namespace {

constexpr char kVfsName[] = "engram-fault";

// What is armed; one for the process, as SQLite's VFS list is.
struct Armed {
  std::mutex mu;  // guards fault and armed
  FileFault fault;
  bool armed = false;
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> failures{0};
};
Armed g_armed;
sqlite3_vfs* g_below = nullptr;  // the VFS every call goes on to

// The error SQLite's unix VFS returns when a call of kind `op` fails.
int DefaultError(FileOp op) {
  switch (op) {
    case FileOp::kRead:
      return SQLITE_IOERR_READ;
    case FileOp::kWrite:
      return SQLITE_IOERR_WRITE;
    case FileOp::kSync:
      return SQLITE_IOERR_FSYNC;
    case FileOp::kTruncate:
      return SQLITE_IOERR_TRUNCATE;
    case FileOp::kLock:
      return SQLITE_IOERR_LOCK;
    case FileOp::kOpen:
      return SQLITE_CANTOPEN;
  }
  return SQLITE_IOERR;
}

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// SQLITE_OK to let the call through, else the error it returns.
int Check(FileOp op, const std::string& file) {
  std::lock_guard<std::mutex> lock(g_armed.mu);
  if (!g_armed.armed || g_armed.fault.op != op || !EndsWith(file, g_armed.fault.file_suffix)) {
    return SQLITE_OK;
  }
  if (g_armed.calls.fetch_add(1) < g_armed.fault.skip) return SQLITE_OK;
  g_armed.failures.fetch_add(1);
  return g_armed.fault.error != 0 ? g_armed.fault.error : DefaultError(op);
}

// Our file: the file of the VFS below follows it in the same allocation.
struct FaultFile {
  sqlite3_file base;
  std::string* name;  // owned
  sqlite3_file* Below() { return reinterpret_cast<sqlite3_file*>(this + 1); }
};

FaultFile* Of(sqlite3_file* f) { return reinterpret_cast<FaultFile*>(f); }
const sqlite3_io_methods* Methods(sqlite3_file* f) { return Of(f)->Below()->pMethods; }

int Close(sqlite3_file* f) {
  const int rc = Methods(f)->xClose(Of(f)->Below());
  delete Of(f)->name;
  return rc;
}
int Read(sqlite3_file* f, void* out, int n, sqlite3_int64 offset) {
  if (const int rc = Check(FileOp::kRead, *Of(f)->name); rc != SQLITE_OK) return rc;
  return Methods(f)->xRead(Of(f)->Below(), out, n, offset);
}
int Write(sqlite3_file* f, const void* data, int n, sqlite3_int64 offset) {
  if (const int rc = Check(FileOp::kWrite, *Of(f)->name); rc != SQLITE_OK) return rc;
  return Methods(f)->xWrite(Of(f)->Below(), data, n, offset);
}
int Truncate(sqlite3_file* f, sqlite3_int64 size) {
  if (const int rc = Check(FileOp::kTruncate, *Of(f)->name); rc != SQLITE_OK) return rc;
  return Methods(f)->xTruncate(Of(f)->Below(), size);
}
int Sync(sqlite3_file* f, int flags) {
  if (const int rc = Check(FileOp::kSync, *Of(f)->name); rc != SQLITE_OK) return rc;
  return Methods(f)->xSync(Of(f)->Below(), flags);
}
int FileSize(sqlite3_file* f, sqlite3_int64* size) {
  return Methods(f)->xFileSize(Of(f)->Below(), size);
}
int Lock(sqlite3_file* f, int level) {
  if (const int rc = Check(FileOp::kLock, *Of(f)->name); rc != SQLITE_OK) return rc;
  return Methods(f)->xLock(Of(f)->Below(), level);
}
int Unlock(sqlite3_file* f, int level) { return Methods(f)->xUnlock(Of(f)->Below(), level); }
int CheckReservedLock(sqlite3_file* f, int* out) {
  return Methods(f)->xCheckReservedLock(Of(f)->Below(), out);
}
int FileControl(sqlite3_file* f, int op, void* arg) {
  return Methods(f)->xFileControl(Of(f)->Below(), op, arg);
}
int SectorSize(sqlite3_file* f) { return Methods(f)->xSectorSize(Of(f)->Below()); }
int DeviceCharacteristics(sqlite3_file* f) {
  return Methods(f)->xDeviceCharacteristics(Of(f)->Below());
}
int ShmMap(sqlite3_file* f, int region, int size, int extend, void volatile** out) {
  return Methods(f)->xShmMap(Of(f)->Below(), region, size, extend, out);
}
int ShmLock(sqlite3_file* f, int offset, int n, int flags) {
  // Taking a lock of the WAL's shared memory is a lock too; releasing one
  // never fails.
  if ((flags & SQLITE_SHM_LOCK) != 0) {
    if (const int rc = Check(FileOp::kLock, *Of(f)->name); rc != SQLITE_OK) return rc;
  }
  return Methods(f)->xShmLock(Of(f)->Below(), offset, n, flags);
}
void ShmBarrier(sqlite3_file* f) { Methods(f)->xShmBarrier(Of(f)->Below()); }
int ShmUnmap(sqlite3_file* f, int delete_flag) {
  return Methods(f)->xShmUnmap(Of(f)->Below(), delete_flag);
}

// Version 2: shared memory for WAL, no memory map, so every read is xRead.
const sqlite3_io_methods kMethods = {2,
                                     Close,
                                     Read,
                                     Write,
                                     Truncate,
                                     Sync,
                                     FileSize,
                                     Lock,
                                     Unlock,
                                     CheckReservedLock,
                                     FileControl,
                                     SectorSize,
                                     DeviceCharacteristics,
                                     ShmMap,
                                     ShmLock,
                                     ShmBarrier,
                                     ShmUnmap,
                                     nullptr,
                                     nullptr};

int Open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* out_flags) {
  auto* ours = Of(file);
  ours->base.pMethods = nullptr;
  const std::string path = name != nullptr ? name : "";
  if (const int rc = Check(FileOp::kOpen, path); rc != SQLITE_OK) return rc;
  const int rc = g_below->xOpen(g_below, name, ours->Below(), flags, out_flags);
  if (ours->Below()->pMethods == nullptr) return rc;  // nothing to close
  ours->name = new std::string(path);
  ours->base.pMethods = &kMethods;
  return rc;
}
int Delete(sqlite3_vfs*, const char* name, int sync_dir) {
  return g_below->xDelete(g_below, name, sync_dir);
}
int Access(sqlite3_vfs*, const char* name, int flags, int* out) {
  return g_below->xAccess(g_below, name, flags, out);
}
int FullPathname(sqlite3_vfs*, const char* name, int n, char* out) {
  return g_below->xFullPathname(g_below, name, n, out);
}
void* DlOpen(sqlite3_vfs*, const char* name) { return g_below->xDlOpen(g_below, name); }
void DlError(sqlite3_vfs*, int n, char* out) { g_below->xDlError(g_below, n, out); }
void (*DlSym(sqlite3_vfs*, void* handle, const char* symbol))() {
  return g_below->xDlSym(g_below, handle, symbol);
}
void DlClose(sqlite3_vfs*, void* handle) { g_below->xDlClose(g_below, handle); }
int Randomness(sqlite3_vfs*, int n, char* out) { return g_below->xRandomness(g_below, n, out); }
int Sleep(sqlite3_vfs*, int micros) { return g_below->xSleep(g_below, micros); }
int CurrentTime(sqlite3_vfs*, double* out) { return g_below->xCurrentTime(g_below, out); }
int GetLastError(sqlite3_vfs*, int n, char* out) { return g_below->xGetLastError(g_below, n, out); }
int CurrentTimeInt64(sqlite3_vfs*, sqlite3_int64* out) {
  return g_below->xCurrentTimeInt64(g_below, out);
}

sqlite3_vfs g_vfs;

}  // namespace

FaultVfs::FaultVfs() {
  sqlite3_initialize();
  g_below = sqlite3_vfs_find(nullptr);
  std::memset(&g_vfs, 0, sizeof g_vfs);
  g_vfs.iVersion = 2;
  g_vfs.szOsFile = static_cast<int>(sizeof(FaultFile)) + g_below->szOsFile;
  g_vfs.mxPathname = g_below->mxPathname;
  g_vfs.zName = kVfsName;
  g_vfs.xOpen = Open;
  g_vfs.xDelete = Delete;
  g_vfs.xAccess = Access;
  g_vfs.xFullPathname = FullPathname;
  g_vfs.xDlOpen = DlOpen;
  g_vfs.xDlError = DlError;
  g_vfs.xDlSym = DlSym;
  g_vfs.xDlClose = DlClose;
  g_vfs.xRandomness = Randomness;
  g_vfs.xSleep = Sleep;
  g_vfs.xCurrentTime = CurrentTime;
  g_vfs.xGetLastError = GetLastError;
  g_vfs.xCurrentTimeInt64 = CurrentTimeInt64;
  sqlite3_vfs_register(&g_vfs, /*makeDflt=*/1);
}

FaultVfs::~FaultVfs() {
  Disarm();
  sqlite3_vfs_unregister(&g_vfs);
  sqlite3_vfs_register(g_below, /*makeDflt=*/1);
}

void FaultVfs::Arm(const FileFault& fault) {
  std::lock_guard<std::mutex> lock(g_armed.mu);
  g_armed.fault = fault;
  g_armed.armed = true;
  g_armed.calls = 0;
  g_armed.failures = 0;
}

void FaultVfs::Disarm() {
  std::lock_guard<std::mutex> lock(g_armed.mu);
  g_armed.armed = false;
}

int64_t FaultVfs::calls() const { return g_armed.calls.load(); }
int64_t FaultVfs::failures() const { return g_armed.failures.load(); }

}  // namespace engram::testing
