// gzip-coded /metrics (exporters/http/gzip_body.h): Accept-Encoding
// negotiation as a table, the encoder against zlib's own inflate, and scrapes
// of the real binary over the seed-box fixture tree with and without
// Accept-Encoding.
#include "exporters/http/gzip_body.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <zlib.h>

#include <cctype>
#include <chrono>
#include <string>
#include <thread>

#include "tests/support/daemon_process.h"
#include "tests/support/fake_fs.h"
#include "tests/support/test_util.h"

namespace bottleneckd::testing::gzip_body_test {
namespace {

struct AcceptCase {
  const char* header;
  bool gzip;
};

TEST(AcceptsGzip, Table) {
  const AcceptCase cases[] = {
      {"gzip", true},
      {"GZIP", true},
      {"GZip", true},
      {"x-gzip", true},
      {"gzip, deflate", true},
      {"deflate, gzip", true},
      {" gzip ", true},
      {"gzip;q=1", true},
      {"gzip; q=0.001", true},
      {"gzip;Q=0.5", true},
      {"gzip ; q = 0.5", true},
      {"gzip;q=0", false},
      {"gzip;q=0.0", false},
      {"gzip;q=0.000", false},
      {"gzip;q=0, deflate", false},
      {"deflate", false},
      {"deflate, br;q=0.9", false},
      {"br, zstd", false},
      {"*", true},
      {"*;q=0.3", true},
      {"*;q=0", false},
      {"gzip;q=0, *", false},  // gzip's own entry wins over *
      {"*, gzip;q=0", false},
      {"*;q=0, gzip", true},
      {"identity;q=1, gzip;q=0.5", false},  // identity preferred
      {"identity;q=0.5, gzip;q=1", true},
      {"identity, gzip", true},  // a tie: gzip
      {"identity", false},
      {"identity;q=0", false},  // nothing else listed: identity stays the answer
      {"*;q=0.5, identity", false},
      {"gzip, identity;q=0", true},
      {"gzip;q=0.5, gzip;q=0", true},  // the first entry counts
      {"", false},
      {" ", false},
      {",,,", false},
      {",gzip,", true},
      // garbage: entries that do not parse are skipped
      {"garbage", false},
      {"gzip;q=", false},
      {"gzip;q=abc", false},
      {"gzip;q=1.5", false},
      {"gzip;q=2", false},
      {"gzip;q=-1", false},
      {"gzip;q=0.5000", false},
      {"gzip;q=.5", false},
      {"gzip;q=0.5;q=0.7", false},
      {"gzip;level", false},
      {"gzip q=1", false},
      {"gzipx", false},
      {"\"gzip\"", false},
      {"gzip/1", false},
      {"gz\x01ip", false},
      {"gzip;q=abc, gzip", true},  // the bad first entry is skipped, not counted
      {";q=1", false},
      {"gzip;foo=bar", true},  // other parameters do not weigh
      {"gzip;foo=bar;q=0", false},
  };
  for (const AcceptCase& c : cases) EXPECT_EQ(AcceptsGzip(c.header), c.gzip) << "Accept-Encoding: " << c.header;
}

// zlib's own decoder: a gzip wrapper only (windowBits 15 + 16), one member,
// nothing after it. False on any error.
bool Gunzip(const std::string& in, std::string* out) {
  out->clear();
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 16) != Z_OK) return false;
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  char buf[65536];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out->append(buf, sizeof(buf) - zs.avail_out);
  }
  bool whole = rc == Z_STREAM_END && zs.avail_in == 0;
  inflateEnd(&zs);
  return whole;
}

// An exposition body of about `bytes`: repetitive, as a scrape is.
std::string ExpositionLike(size_t bytes) {
  std::string s = "# HELP bottleneckd_cpu_seconds_total CPU time.\n# TYPE bottleneckd_cpu_seconds_total counter\n";
  for (unsigned i = 0; s.size() < bytes; ++i)
    s += "bottleneckd_cpu_seconds_total{cpu=\"" + std::to_string(i % 128) + "\",mode=\"user\"} " +
         std::to_string(i * 7919ull % 1000003) + ".25\n";
  return s;
}

TEST(GzipEncode, InflatesToTheSameBytes) {
  const std::string bodies[] = {
      "",
      "x",
      "ok\n",
      ExpositionLike(50 * 1024),
      ExpositionLike(9 * 1024 * 1024),
      ReadFileOrDie(std::string(BOTTLENECKD_SOURCE_DIR) + "/tests/golden/large-host.metrics")};
  for (int level : {kGzipFastest, kGzipDefault, 0, 9}) {
    for (const std::string& body : bodies) {
      std::string gz = "left over from the last scrape", back;
      ASSERT_TRUE(GzipEncode(body, level, &gz).ok()) << "level " << level << ", " << body.size() << " B";
      ASSERT_GE(gz.size(), 18u);  // 10 B header + 8 B trailer
      EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
      EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
      ASSERT_TRUE(Gunzip(gz, &back)) << "level " << level << ", " << body.size() << " B";
      EXPECT_TRUE(back == body) << "level " << level << ", " << body.size() << " B: inflated to " << back.size();
      if (body.size() > 4096 && level > 0) {
        EXPECT_LT(gz.size() * 4, body.size()) << "level " << level;
      }
    }
  }
}

TEST(GzipEncode, ZlibErrorLeavesNoBody) {
  std::string gz = "stale";
  Status s = GzipEncode("some body", 42, &gz);  // zlib refuses the level
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("gzip"), std::string::npos) << s.message();
  EXPECT_TRUE(gz.empty());
}

// The value of header `name` (case-insensitive) in a response's header block,
// or "<absent>".
std::string Header(const std::string& headers, const std::string& name) {
  size_t at = 0;
  while ((at = headers.find("\r\n", at)) != std::string::npos) {
    at += 2;
    size_t colon = headers.find(':', at);
    size_t end = headers.find("\r\n", at);
    if (colon == std::string::npos || (end != std::string::npos && colon > end)) continue;
    std::string n = headers.substr(at, colon - at);
    for (char& c : n) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string want = name;
    for (char& c : want) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (n != want) continue;
    size_t v = headers.find_first_not_of(' ', colon + 1);
    return headers.substr(v, (end == std::string::npos ? headers.size() : end) - v);
  }
  return "<absent>";
}

class ServedScrape : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("bottleneckd.yaml", "interval: 200ms\n");
    HostRoots r = FixtureRoots("seed-box");
    ASSERT_TRUE(d_.Start({"--config.file=" + dir_.path() + "/bottleneckd.yaml", "--web.listen-address=127.0.0.1:0",
                          "--path.procfs=" + r.procfs, "--path.sysfs=" + r.sysfs, "--path.ethtool=" + r.ethtool}))
        << d_.error();
    // The first window (two samples), so the window families are in both
    // scrapes compared.
    ASSERT_TRUE(d_.WaitForMetric("\nbottleneckd_verdict_info{", 60)) << d_.Stderr();
  }
  void TearDown() override {
    d_.Signal(SIGTERM);
    EXPECT_EQ(d_.Wait(10), 0);
    EXPECT_EQ(d_.Stderr().find("gzip failed"), std::string::npos) << d_.Stderr();
  }
  HttpResponse Get(const std::string& path, const std::string& accept_encoding, const char* method = "GET") {
    return HttpRequest(d_.port(), method, path, "Accept-Encoding: " + accept_encoding + "\r\n");
  }

  TempDir dir_;
  DaemonProcess d_;
};

TEST_F(ServedScrape, GzipWhenAskedIdentityOtherwise) {
  HttpResponse plain = d_.Get("/metrics");
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(Header(plain.headers, "Content-Encoding"), "<absent>");
  EXPECT_EQ(Header(plain.headers, "Vary"), "Accept-Encoding");
  EXPECT_EQ(Header(plain.headers, "Content-Length"), std::to_string(plain.body.size()));
  ASSERT_EQ(plain.body.rfind("# HELP ", 0), 0u) << plain.body.substr(0, 100);

  HttpResponse gz = Get("/metrics", "gzip");
  ASSERT_EQ(gz.status, 200);
  EXPECT_EQ(Header(gz.headers, "Content-Encoding"), "gzip");
  EXPECT_EQ(Header(gz.headers, "Vary"), "Accept-Encoding");
  EXPECT_EQ(Header(gz.headers, "Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_EQ(Header(gz.headers, "Content-Length"), std::to_string(gz.body.size()));
  std::string inflated;
  ASSERT_TRUE(Gunzip(gz.body, &inflated)) << gz.body.size() << " B that do not inflate";
  EXPECT_LT(gz.body.size() * 4, inflated.size());
  EXPECT_EQ(NormalizeVolatileMetrics(inflated), NormalizeVolatileMetrics(plain.body));
  std::string promtool_out;
  EXPECT_EQ(RunPromtoolCheckMetrics(inflated, &promtool_out), 0) << promtool_out;

  // Several Accept-Encoding lines are one list.
  HttpResponse two = HttpRequest(d_.port(), "GET", "/metrics", "Accept-Encoding: br\r\naccept-encoding: GZIP\r\n");
  EXPECT_EQ(Header(two.headers, "Content-Encoding"), "gzip");
  EXPECT_TRUE(Gunzip(two.body, &inflated));
}

TEST_F(ServedScrape, RefusedGzipIsIdentity) {
  for (const char* ae : {"gzip;q=0", "deflate", "identity;q=1, gzip;q=0.5", "", "garbage;;;"}) {
    HttpResponse r = Get("/metrics", ae);
    ASSERT_EQ(r.status, 200) << ae;
    EXPECT_EQ(Header(r.headers, "Content-Encoding"), "<absent>") << ae;
    EXPECT_EQ(r.body.rfind("# HELP ", 0), 0u) << ae;
  }
}

TEST_F(ServedScrape, HeadAndErrorsStaySane) {
  // HEAD: GET's headers, no body.
  HttpResponse head = Get("/metrics", "gzip", "HEAD");
  ASSERT_EQ(head.status, 200);
  EXPECT_EQ(Header(head.headers, "Content-Encoding"), "gzip");
  EXPECT_TRUE(head.body.empty());
  EXPECT_NE(Header(head.headers, "Content-Length"), "0");
  // Errors are short identity bodies whatever was asked.
  HttpResponse missing = Get("/metricsXYZ", "gzip");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Header(missing.headers, "Content-Encoding"), "<absent>");
  EXPECT_EQ(missing.body, "not found: try /metrics\n");
  HttpResponse post = Get("/metrics", "gzip", "POST");
  EXPECT_EQ(post.status, 405);
  EXPECT_EQ(Header(post.headers, "Content-Encoding"), "<absent>");
  // The other endpoints are not coded.
  HttpResponse health = Get("/healthz", "gzip");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
}

}  // namespace
}  // namespace bottleneckd::testing::gzip_body_test
