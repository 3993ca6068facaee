#include "src/server/connection_watchdog.h"

#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <utility>

namespace engram {
namespace {

using Clock = std::chrono::steady_clock;

std::string PeerKey(const std::string& host, int port) { return host + " " + std::to_string(port); }

// A socket accepted on the server's port: its descriptor, inode and peer.
struct Socket {
  int fd = -1;
  ino_t inode = 0;
  std::string peer;
};

int LocalPort(const sockaddr_storage& addr) {
  if (addr.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(addr).sin_port);
  }
  if (addr.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(addr).sin6_port);
  }
  return -1;
}

// True, with its inode and peer, when `fd` is a connection accepted on
// `port` (not a file, a listener or a client socket).
bool AcceptedOn(int fd, int port, ino_t* inode, std::string* peer) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int listening = 0;
  socklen_t len = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening != 0) {
    return false;
  }
  sockaddr_storage local{};
  len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) != 0) return false;
  if (LocalPort(local) != port) return false;
  sockaddr_storage remote{};
  len = sizeof remote;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &len) != 0) return false;
  // The same numeric form httplib gives Request::remote_addr.
  char host[NI_MAXHOST];
  if (getnameinfo(reinterpret_cast<sockaddr*>(&remote), len, host, sizeof host, nullptr, 0,
                  NI_NUMERICHOST) != 0) {
    return false;
  }
  *inode = st.st_ino;
  *peer = PeerKey(host, LocalPort(remote));
  return true;
}

// The sockets accepted on `port` that this process holds.
std::vector<Socket> AcceptedSockets(int listen_fd, int port) {
  std::vector<Socket> out;
  DIR* dir = opendir("/proc/self/fd");
  if (dir == nullptr) return out;
  const int own = dirfd(dir);
  while (const dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == own || fd == listen_fd) continue;
    Socket s;
    s.fd = static_cast<int>(fd);
    if (AcceptedOn(s.fd, port, &s.inode, &s.peer)) out.push_back(std::move(s));
  }
  closedir(dir);
  return out;
}

// Shuts `s` down if its descriptor still holds that socket (the serving
// thread may have closed it, and a new one taken its number). True if shut.
bool ShutdownIfStillHeld(const Socket& s) {
  struct stat st {};
  if (fstat(s.fd, &st) != 0 || st.st_ino != s.inode) return false;
  return shutdown(s.fd, SHUT_RDWR) == 0;
}

}  // namespace

std::vector<size_t> ConnectionsToClose(const std::vector<WatchedConnection>& connections,
                                       Clock::time_point now, size_t queued,
                                       const ConnectionWatchdogOptions& options) {
  std::vector<size_t> out;
  std::vector<size_t> sheddable;  // waiting, past shed_after, not yet cut
  for (size_t i = 0; i < connections.size(); ++i) {
    const WatchedConnection& c = connections[i];
    const Clock::duration age = now - c.since;
    switch (c.phase) {
      case ConnectionPhase::kWaiting:
        if (age > options.header_timeout) {
          out.push_back(i);
        } else if (age > options.shed_after) {
          sheddable.push_back(i);
        }
        break;
      case ConnectionPhase::kBody:
        if (age > options.header_timeout + c.allowed) out.push_back(i);
        break;
      case ConnectionPhase::kHandling:
        break;
    }
  }
  // Each connection cut frees a thread for one that queues.
  const size_t still_queued = queued > out.size() ? queued - out.size() : 0;
  std::sort(sheddable.begin(), sheddable.end(), [&connections](size_t a, size_t b) {
    return connections[a].since < connections[b].since;
  });
  sheddable.resize(std::min(sheddable.size(), still_queued));
  out.insert(out.end(), sheddable.begin(), sheddable.end());
  return out;
}

ConnectionWatchdog::ConnectionWatchdog(ConnectionWatchdogOptions options) : options_(options) {}

ConnectionWatchdog::~ConnectionWatchdog() { Stop(); }

void ConnectionWatchdog::Start(int listen_fd, int port, std::function<size_t()> queued) {
  Stop();
  listen_fd_ = listen_fd;
  port_ = port;
  queued_ = std::move(queued);
  listed_.clear();
  last_scan_start_ = Clock::now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
  }
  thread_ = std::thread([this] { Run(); });
}

void ConnectionWatchdog::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void ConnectionWatchdog::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!wake_.wait_for(lock, options_.scan_interval, [this] { return stopping_; })) {
    lock.unlock();
    ScanOnce();
    lock.lock();
  }
}

void ConnectionWatchdog::Report(const std::string& host, int port, ConnectionPhase phase,
                                Clock::duration allowed) {
  if (host.empty() || port <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  peers_[PeerKey(host, port)] = WatchedConnection{phase, Clock::now(), allowed};
}

void ConnectionWatchdog::ReportHeaders(const std::string& host, int port, size_t body_bytes) {
  if (body_bytes == 0) return ReportHandling(host, port);
  const auto allowed = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
      static_cast<double>(body_bytes) /
      static_cast<double>(std::max<size_t>(options_.min_body_bytes_per_s, 1))));
  Report(host, port, ConnectionPhase::kBody, allowed);
}

void ConnectionWatchdog::ReportHandling(const std::string& host, int port) {
  Report(host, port, ConnectionPhase::kHandling, {});
}

void ConnectionWatchdog::ReportAnswered(const std::string& host, int port) {
  Report(host, port, ConnectionPhase::kWaiting, {});
}

void ConnectionWatchdog::ScanOnce() {
  const Clock::time_point scan_start = Clock::now();
  const std::vector<Socket> sockets = AcceptedSockets(listen_fd_, port_);

  // Phase: each socket's state, from what the server reported for its
  // peer since the socket was accepted, else waiting since it was first
  // listed.
  std::unordered_map<ino_t, Listed> listed;
  std::vector<WatchedConnection> connections;
  connections.reserve(sockets.size());
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::unordered_map<std::string, bool> live;
    for (const Socket& s : sockets) {
      const auto known = listed_.find(s.inode);
      const Listed entry =
          known != listed_.end() ? known->second : Listed{scan_start, last_scan_start_};
      listed.emplace(s.inode, entry);
      const Clock::time_point opened = entry.first_listed;
      live[s.peer] = true;
      const auto reported = peers_.find(s.peer);
      if (reported != peers_.end() && reported->second.since >= entry.accepted_after) {
        connections.push_back(reported->second);
      } else {
        connections.push_back(WatchedConnection{ConnectionPhase::kWaiting, opened, {}});
      }
    }
    // A peer whose socket is gone is forgotten, unless its report came
    // after this scan began (its socket is too new to be listed).
    for (auto it = peers_.begin(); it != peers_.end();) {
      const bool keep = live.count(it->first) > 0 || it->second.since >= scan_start;
      it = keep ? std::next(it) : peers_.erase(it);
    }
  }
  listed_ = std::move(listed);
  last_scan_start_ = scan_start;

  // Cut: shutdown each socket to close that its descriptor still holds.
  const size_t queued = queued_ ? queued_() : 0;
  for (size_t i : ConnectionsToClose(connections, Clock::now(), queued, options_)) {
    if (ShutdownIfStillHeld(sockets[i])) closed_.fetch_add(1);
  }
}

}  // namespace engram
