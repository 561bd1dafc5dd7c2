// /metrics through HttpServer (exporters/http/http_server.h) over a store the
// test publishes into: the body built once per snapshot must follow every new
// snapshot, and the gzip body of a tick must be that tick's identity body.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <zlib.h>

#include <memory>
#include <string>

#include "base/unique_fd.h"
#include "exporters/http/http_server.h"
#include "tests/support/test_util.h"

namespace bottleneckd::metrics_route_test {
namespace {

// One request on a fresh connection, read to the server's close.
std::string Fetch(int port, const std::string& extra_headers = "") {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) return "";
  std::string req = "GET /metrics HTTP/1.1\r\nConnection: close\r\n" + extra_headers + "\r\n";
  if (::send(fd.get(), req.data(), req.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(req.size())) return "";
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::recv(fd.get(), buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  size_t body = out.find("\r\n\r\n");
  return body == std::string::npos ? "" : out.substr(body + 4);
}

std::string Gunzip(const std::string& gz) {
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return "";
  std::string out(gz.size() * 50 + 1024, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = inflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? out : "";
}

std::shared_ptr<const Snapshot> SnapshotWithSamples(uint64_t n) {
  auto s = std::make_shared<Snapshot>();
  s->samples_total = n;
  return s;
}

TEST(MetricsRoute, EachSnapshotIsServedAndGzipMatchesItsTick) {
  SnapshotStore store;
  ListenAddress addr;
  ASSERT_OK(ParseListenAddress("127.0.0.1:0", &addr));
  std::unique_ptr<HttpServer> server;
  ASSERT_OK(HttpServer::Start(addr, &store, &server));
  int port = std::stoi(server->BoundAddress().substr(server->BoundAddress().rfind(':') + 1));

  std::string before = Fetch(port);
  EXPECT_NE(before.find("bottleneckd_build_info"), std::string::npos);
  EXPECT_EQ(before.find("bottleneckd_samples_total"), std::string::npos) << "no snapshot yet";

  for (uint64_t n : {7u, 8u, 1234567u}) {
    store.Publish(SnapshotWithSamples(n));
    const std::string want = "\nbottleneckd_samples_total " + std::to_string(n) + "\n";
    std::string plain = Fetch(port);
    EXPECT_NE(plain.find(want), std::string::npos) << "snapshot " << n << " not served";
    EXPECT_EQ(Fetch(port), plain) << "a second scrape of the same snapshot differs";
    std::string inflated = Gunzip(Fetch(port, "Accept-Encoding: gzip\r\n"));
    EXPECT_EQ(inflated, plain) << "the gzip body is not this snapshot's";
  }
}

}  // namespace
}  // namespace bottleneckd::metrics_route_test
