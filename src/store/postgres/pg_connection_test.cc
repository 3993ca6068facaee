// PgConnection against a real PostgreSQL server: the throw-away cluster
// `make test` starts (testing/pg_test_database.h), a database per test.
#include "src/store/postgres/pg_connection.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "src/store/postgres/testing/pg_database_test.h"
#include "src/store/postgres/testing/pg_test_database.h"
#include "tests/test_util.h"

namespace engram {
namespace {

using PgConnectionTest = testing::PgDatabaseTest;

TEST_F(PgConnectionTest, ValuesGoInAsParametersAndComeBackExactly) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE t (id bigint PRIMARY KEY, name text, score double "
                        "precision, blob bytea)")
                  .ok());
  std::string every_byte;
  for (int b = 0; b < 256; ++b) every_byte.push_back(static_cast<char>(b));
  const std::string tricky = "it's; DROP TABLE t; -- \"quoted\" ção \\x00";
  const std::vector<double> scores = {0.1, -1e-300, 1.0 / 3.0, std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::denorm_min()};
  for (size_t i = 0; i < scores.size(); ++i) {
    auto inserted = db_->Query("INSERT INTO t VALUES ($1, $2, $3, $4)",
                               {PgParam::Int(static_cast<int64_t>(i) - 2), PgParam::Text(tricky),
                                PgParam::Double(scores[i]), PgParam::Bytes(every_byte)});
    ASSERT_TRUE(inserted.ok()) << inserted.status().ToString();
    EXPECT_EQ(inserted->AffectedRows(), 1);
  }
  ASSERT_TRUE(db_->Query("INSERT INTO t VALUES ($1, $2, $3, $4)",
                         {PgParam::Int(std::numeric_limits<int64_t>::min()), PgParam::Null(),
                          PgParam::Null(), PgParam::Bytes("")})
                  .ok());

  auto rows = db_->Query("SELECT id, name, score, blob FROM t ORDER BY id");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->Rows(), 6);
  ASSERT_EQ(rows->Columns(), 4);
  EXPECT_EQ(*rows->Int(0, 0), std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(rows->IsNull(0, 1));
  EXPECT_TRUE(rows->IsNull(0, 2));
  EXPECT_EQ(*rows->Bytes(0, 3), "");
  for (int r = 1; r < 6; ++r) {
    EXPECT_EQ(*rows->Int(r, 0), r - 3);
    EXPECT_EQ(rows->Text(r, 1), tricky);
    EXPECT_EQ(*rows->Double(r, 2), scores[static_cast<size_t>(r - 1)]) << "row " << r;
    EXPECT_EQ(*rows->Bytes(r, 3), every_byte);
  }
  // The table is still there: the text went in as a value.
  EXPECT_EQ(*db_->Query("SELECT count(*) FROM t")->Int(0, 0), 6);
}

TEST_F(PgConnectionTest, AValueOfAnotherTypeIsAnErrorNamingWhereItIs) {
  auto rows = db_->Query("SELECT 'abc'::text, NULL::bigint, '\\xzz'::text");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  const Status not_int = rows->Int(0, 0).status();
  EXPECT_EQ(not_int.code(), StatusCode::kInternal);
  EXPECT_NE(not_int.message().find("row 0 column 0 holds 'abc', not an integer"), std::string::npos)
      << not_int.message();
  EXPECT_NE(rows->Int(0, 1).status().message().find("holds NULL"), std::string::npos);
  EXPECT_EQ(rows->Bytes(0, 2).status().code(), StatusCode::kInternal);
}

TEST_F(PgConnectionTest, ServerErrorsBecomeStatusesByTheirSqlstate) {
  ASSERT_TRUE(db_->Exec("CREATE TABLE u (k text PRIMARY KEY)").ok());
  ASSERT_TRUE(db_->Query("INSERT INTO u VALUES ($1)", {PgParam::Text("a")}).ok());
  const Status duplicate = db_->Query("INSERT INTO u VALUES ($1)", {PgParam::Text("a")}).status();
  EXPECT_EQ(duplicate.code(), StatusCode::kAlreadyExists) << duplicate.ToString();
  EXPECT_NE(duplicate.message().find("(SQLSTATE 23505)"), std::string::npos);
  EXPECT_NE(duplicate.message().find("duplicate key"), std::string::npos);

  EXPECT_EQ(db_->Query("SELECT 1 / 0").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(db_->Query("SELEC 1").status().code(), StatusCode::kIOError);
  // A transaction that lost a serialization race or a deadlock may succeed
  // when run again.
  for (const char* sqlstate : {"40001", "40P01", "57P01"}) {
    const Status raised =
        db_->Exec(std::string("DO $$ BEGIN RAISE EXCEPTION 'raised' USING ERRCODE = '") + sqlstate +
                  "'; END $$");
    EXPECT_EQ(raised.code(), StatusCode::kUnavailable) << raised.ToString();
    EXPECT_TRUE(raised.retryable());
  }
  // After each error the connection still answers.
  EXPECT_FALSE(db_->Lost());
  EXPECT_EQ(*db_->Query("SELECT count(*) FROM u")->Int(0, 0), 1);
}

TEST_F(PgConnectionTest, ALostConnectionIsUnavailableAndSaysSo) {
  const int64_t pid = *db_->Query("SELECT pg_backend_pid()")->Int(0, 0);
  auto admin = PgConnection::Connect(database_->ClusterUrl());
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  ASSERT_TRUE((*admin)->Query("SELECT pg_terminate_backend($1)", {PgParam::Int(pid)}).ok());

  const Status after = db_->Query("SELECT 1").status();
  EXPECT_EQ(after.code(), StatusCode::kUnavailable) << after.ToString();
  EXPECT_TRUE(db_->Lost());
  EXPECT_EQ(db_->Exec("SELECT 1").code(), StatusCode::kUnavailable);
}

// Relays one client to the test cluster's socket, byte for byte, until
// told to cut: then, at the client's next request, it closes both sides
// without reading it or answering. The client's read fails with
// ECONNRESET, which libpq reports as "server closed the connection
// unexpectedly" without marking the connection bad: what a crashed server
// or a dead network path can look like.
class CuttingProxy {
 public:
  // Listens at `dir`/.s.PGSQL.5432 and relays to `server_socket`.
  CuttingProxy(const std::string& dir, std::string server_socket)
      : server_socket_(std::move(server_socket)) {
    listener_ = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un address = Address(dir + "/.s.PGSQL.5432");
    EXPECT_EQ(::bind(listener_, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    EXPECT_EQ(::listen(listener_, 1), 0);
    thread_ = std::thread([this] { Relay(); });
  }
  ~CuttingProxy() {
    stop_ = true;
    thread_.join();
    ::close(listener_);
  }
  void CutAtTheNextRequest() { cut_ = true; }

 private:
  static sockaddr_un Address(const std::string& path) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    return address;
  }
  // Waits for `fd` to be readable for up to 50 ms.
  static bool Readable(int fd) {
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 50) > 0;
  }
  void Relay() {
    int client = -1;
    while (!stop_ && client < 0) {
      if (Readable(listener_)) client = ::accept(listener_, nullptr, nullptr);
    }
    if (client < 0) return;
    const int server = ::socket(AF_UNIX, SOCK_STREAM, 0);
    const sockaddr_un address = Address(server_socket_);
    EXPECT_EQ(::connect(server, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
    char buffer[8192];
    while (!stop_) {
      pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
      if (::poll(fds, 2, 50) <= 0) continue;
      if (cut_ && (fds[0].revents & POLLIN) != 0) break;  // unread: the client gets a reset
      bool open = true;
      for (int i = 0; i < 2 && open; ++i) {
        if ((fds[i].revents & (POLLIN | POLLHUP)) == 0) continue;
        const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
        open = n > 0 && ::write(fds[1 - i].fd, buffer, static_cast<size_t>(n)) == n;
      }
      if (!open) break;
    }
    ::close(client);
    ::close(server);
  }

  std::string server_socket_;
  int listener_ = -1;
  std::atomic<bool> cut_{false};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(PgConnectionTest, AConnectionResetWithoutAnSqlstateIsLostAndUnavailable) {
  // The test database's URL with its socket directory replaced by the
  // proxy's.
  const std::string url = database_->Url();
  const size_t host = url.find("host=");
  ASSERT_NE(host, std::string::npos) << "the test cluster listens on a Unix socket";
  const size_t end = url.find('&', host);
  const std::string cluster_dir = url.substr(host + 5, end - host - 5);
  const testing::TempDir proxy_dir;
  CuttingProxy proxy(proxy_dir.path().string(), cluster_dir + "/.s.PGSQL.5432");
  auto connection = PgConnection::Connect(url.substr(0, host + 5) + proxy_dir.path().string() +
                                          (end == std::string::npos ? "" : url.substr(end)));
  ASSERT_TRUE(connection.ok()) << connection.status().ToString();
  ASSERT_TRUE((*connection)->Query("SELECT 1").ok());

  proxy.CutAtTheNextRequest();
  const Status cut = (*connection)->Query("SELECT 2").status();
  EXPECT_EQ(cut.code(), StatusCode::kUnavailable) << cut.ToString();
  EXPECT_NE(cut.message().find("lost the connection"), std::string::npos) << cut.ToString();
  EXPECT_TRUE((*connection)->Lost());
}

TEST(PgConnectTest, AUrlOfAnotherKindIsInvalidArgumentWithoutItsPassword) {
  for (const char* url : {"mysql://engram:s3cret@db/memory", "/var/lib/engram/memory.db",
                          "host=db password=s3cret"}) {
    const Status status = PgConnection::Connect(url).status();
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << url;
    EXPECT_NE(status.message().find("not a PostgreSQL URL"), std::string::npos) << url;
    EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.message();
  }
}

TEST(PgConnectTest, AServerThatIsNotThereIsUnavailableWithoutThePassword) {
  const Status status =
      PgConnection::Connect("postgresql://engram:s3cret@/memory?host=/nonexistent-engram-dir",
                            PgConnectOptions{2})
          .status();
  EXPECT_EQ(status.code(), StatusCode::kUnavailable) << status.ToString();
  EXPECT_NE(status.message().find("cannot connect to postgresql:///memory"), std::string::npos)
      << status.message();
  EXPECT_EQ(status.message().find("s3cret"), std::string::npos) << status.message();
}

TEST(PgConnectTest, WithoutAClusterTheHelperSaysHowToGetOne) {
  // What a test run outside ctest meets.
  const char* saved_state = std::getenv("ENGRAM_TEST_POSTGRES_STATE");
  const std::string state = saved_state == nullptr ? "" : saved_state;
  ::unsetenv("ENGRAM_TEST_POSTGRES_STATE");
  const char* saved_url = std::getenv("ENGRAM_TEST_POSTGRES_URL");
  const std::string url = saved_url == nullptr ? "" : saved_url;
  ::unsetenv("ENGRAM_TEST_POSTGRES_URL");
  const Status status = testing::PgTestDatabase::Create().status();
  if (!state.empty()) ::setenv("ENGRAM_TEST_POSTGRES_STATE", state.c_str(), 1);
  if (!url.empty()) ::setenv("ENGRAM_TEST_POSTGRES_URL", url.c_str(), 1);
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("scripts/pg_cluster.sh start"), std::string::npos);
}

}  // namespace
}  // namespace engram
