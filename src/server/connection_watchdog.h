// ConnectionWatchdog: keeps slow and idle connections from starving the
// others in a server whose threads each serve one connection at a time
// (cpp-httplib's model), so that a client trickling its headers, or many
// of them, cannot hold every thread.
//
// A connection accepted on the server's port is in one of three phases:
//   kWaiting   for the headers of its next request, since it opened or
//              since its last answer was written (an idle keep-alive
//              connection waits too);
//   kBody      its request's body is being read, since its headers came;
//   kHandling  a handler runs; never cut, however long it takes.
// Every `scan_interval` the watchdog lists the process's sockets accepted
// on that port (/proc/self/fd) and shuts down (shutdown(2): the serving
// thread sees the end of the stream, closes the socket and takes the next
// connection):
//   - a waiting connection older than `header_timeout`;
//   - a body older than `header_timeout` plus its length at
//     `min_body_bytes_per_s`;
//   - while accepted connections queue for a free thread, the oldest
//     waiting connections older than `shed_after`, one per queued one: a
//     client sends its headers at once, so these are the slow or idle ones.
// The server reports phase changes by peer address (host and port, as
// httplib's Request has them); the watchdog joins them to sockets with
// getpeername(2).
//
// Thread-safety: the Report* calls may come from any thread; Start and
// Stop from the thread that owns the server.
#ifndef ENGRAM_SRC_SERVER_CONNECTION_WATCHDOG_H_
#define ENGRAM_SRC_SERVER_CONNECTION_WATCHDOG_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace engram {

struct ConnectionWatchdogOptions {
  // Time a connection has to send a request's headers, counted from when
  // it opens or from its last answer; default 5 s (a client sends its
  // headers in one packet; Apache's mod_reqtimeout allows 20 s at first).
  std::chrono::milliseconds header_timeout{5000};
  // Slowest body rate a request may use beyond header_timeout; default
  // 64 KiB/s (an 8 MiB body gets 5 s + 128 s).
  size_t min_body_bytes_per_s = 64 << 10;
  // While connections queue for a thread, a waiting connection older than
  // this is closed to make room; default 1 s.
  std::chrono::milliseconds shed_after{1000};
  // How often the sockets are looked at; default 100 ms, which bounds how
  // late a cut comes.
  std::chrono::milliseconds scan_interval{100};
};

enum class ConnectionPhase { kWaiting, kBody, kHandling };

// One connection as a scan sees it.
struct WatchedConnection {
  ConnectionPhase phase = ConnectionPhase::kWaiting;
  std::chrono::steady_clock::time_point since;    // start of its phase
  std::chrono::steady_clock::duration allowed{};  // kBody: time its body may take
};

// The indices in `connections` to close at `now` when `queued` connections
// wait for a thread, by the rules in the header comment.
std::vector<size_t> ConnectionsToClose(const std::vector<WatchedConnection>& connections,
                                       std::chrono::steady_clock::time_point now, size_t queued,
                                       const ConnectionWatchdogOptions& options);

class ConnectionWatchdog {
 public:
  explicit ConnectionWatchdog(ConnectionWatchdogOptions options = {});
  ~ConnectionWatchdog();
  ConnectionWatchdog(const ConnectionWatchdog&) = delete;
  ConnectionWatchdog& operator=(const ConnectionWatchdog&) = delete;

  // Starts watching connections accepted by `listen_fd` on `port`;
  // `queued` tells how many accepted connections wait for a thread.
  void Start(int listen_fd, int port, std::function<size_t()> queued);
  // Stops the scans; idempotent.
  void Stop();

  // A request's headers have come from `host`:`port`; its body of
  // `body_bytes` follows (0: none, the handler runs next).
  void ReportHeaders(const std::string& host, int port, size_t body_bytes);
  // The request's body has been read; its handler runs.
  void ReportHandling(const std::string& host, int port);
  // The answer is written; the connection waits for its next request.
  void ReportAnswered(const std::string& host, int port);

  // Connections closed so far for being slow or idle.
  uint64_t closed() const { return closed_.load(); }  // NOLINT(readability-identifier-naming)

 private:
  void Run();
  void ScanOnce();
  void Report(const std::string& host, int port, ConnectionPhase phase,
              std::chrono::steady_clock::duration allowed);

  const ConnectionWatchdogOptions options_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::function<size_t()> queued_;

  std::mutex mu_;  // guards peers_, stopping_
  std::condition_variable wake_;
  bool stopping_ = false;
  std::unordered_map<std::string, WatchedConnection> peers_;  // by "host port"

  // Scan thread only: each socket (by inode) that a scan listed, with when
  // it was first listed and the start of the scan before that, which did
  // not list it: it was accepted after then, so a report on its peer from
  // after then is about it (a peer's host and port name one connection at
  // a time). A report is matched by that bound, not by the first listing,
  // so a scan that comes late (a loaded machine) still sees the phases
  // the server reported before it.
  struct Listed {
    std::chrono::steady_clock::time_point first_listed;
    std::chrono::steady_clock::time_point accepted_after;
  };
  std::unordered_map<ino_t, Listed> listed_;
  // Scan thread only: when the last scan began.
  std::chrono::steady_clock::time_point last_scan_start_;
  std::atomic<uint64_t> closed_{0};
  std::thread thread_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_CONNECTION_WATCHDOG_H_
