// ParseRequestHead (exporters/http/request_head.h) on literal requests: what
// clients send (curl, Prometheus, HTTP/1.0 tools), and what hostile ones do.
#include "exporters/http/request_head.h"

#include <gtest/gtest.h>

#include <string>

namespace bottleneckd::request_head_test {
namespace {

constexpr size_t kMax = 8192;

struct Parsed {
  HeadParse result;
  RequestHead head;
  int status = 0;
  std::string error;
};

Parsed Parse(const std::string& in, size_t max_head = kMax) {
  Parsed p;
  p.result = ParseRequestHead(in, max_head, &p.head, &p.status, &p.error);
  return p;
}

TEST(ParseRequestHead, PrometheusScrape) {
  const std::string in =
      "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9858\r\nUser-Agent: Prometheus/2.42.0\r\n"
      "Accept: application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
      "Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n";
  Parsed p = Parse(in + "GET /next");  // a pipelined request's start is not consumed
  ASSERT_EQ(p.result, HeadParse::kComplete) << p.error;
  EXPECT_EQ(p.head.method, "GET");
  EXPECT_EQ(p.head.path, "/metrics");
  EXPECT_EQ(p.head.minor_version, 1);
  EXPECT_TRUE(p.head.keep_alive);
  EXPECT_FALSE(p.head.has_body);
  EXPECT_EQ(p.head.accept_encoding, "gzip");
  EXPECT_EQ(p.head.size, in.size());
}

TEST(ParseRequestHead, IncompleteUntilTheBlankLine) {
  const std::string in = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
  for (size_t cut = 0; cut < in.size(); ++cut)
    EXPECT_EQ(Parse(in.substr(0, cut)).result, HeadParse::kIncomplete) << cut;
  EXPECT_EQ(Parse(in).result, HeadParse::kComplete);
}

TEST(ParseRequestHead, BareLineFeedsAndLeadingBlankLines) {
  Parsed p = Parse("\r\n\nGET /healthz HTTP/1.0\nHost: x\n\n");
  ASSERT_EQ(p.result, HeadParse::kComplete) << p.error;
  EXPECT_EQ(p.head.path, "/healthz");
  EXPECT_EQ(p.head.minor_version, 0);
  EXPECT_FALSE(p.head.keep_alive);  // 1.0 closes unless asked
  EXPECT_EQ(Parse("\r\n\r\n\r\nGET / HTTP/1.1\r\n\r\n").status, 400);
}

TEST(ParseRequestHead, Persistence) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nConnection: close\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nConnection: Upgrade, CLOSE\r\n\r\n").head.keep_alive);
  EXPECT_TRUE(Parse("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(Parse("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n\r\n").head.keep_alive);
}

TEST(ParseRequestHead, TargetForms) {
  EXPECT_EQ(Parse("GET /metrics?name[]=x#frag HTTP/1.1\r\n\r\n").head.path, "/metrics");
  EXPECT_EQ(Parse("GET http://host:9858/metrics?x HTTP/1.1\r\n\r\n").head.path, "/metrics");
  EXPECT_EQ(Parse("GET HTTP://host HTTP/1.1\r\n\r\n").head.path, "/");
  EXPECT_EQ(Parse("OPTIONS * HTTP/1.1\r\n\r\n").head.path, "*");
  // Not decoded: %2F is not a slash, and %00 does not end the path.
  EXPECT_EQ(Parse("GET /metrics%00/../x HTTP/1.1\r\n\r\n").head.path, "/metrics%00/../x");
  for (const char* bad : {"GET metrics HTTP/1.1\r\n\r\n", "GET ftp://h/x HTTP/1.1\r\n\r\n",
                          "GET http:///x HTTP/1.1\r\n\r\n", "GET /a\x01 HTTP/1.1\r\n\r\n"}) {
    Parsed p = Parse(bad);
    EXPECT_EQ(p.result, HeadParse::kError) << bad;
    EXPECT_EQ(p.status, 400) << bad;
  }
}

TEST(ParseRequestHead, RequestLineErrors) {
  struct Case {
    const char* in;
    int status;
    const char* why;
  };
  const Case cases[] = {
      {"GET /metrics\r\n\r\n", 400, "request line is not METHOD TARGET VERSION"},
      {"GET  /metrics HTTP/1.1\r\n\r\n", 400, "request line is not METHOD TARGET VERSION"},
      {"GET /metrics HTTP/1.1 x\r\n\r\n", 400, "request line is not METHOD TARGET VERSION"},
      {"G(T /metrics HTTP/1.1\r\n\r\n", 400, "method is not a token"},
      {"GET /metrics HTTP/1\r\n\r\n", 400, "version is not HTTP/D.D"},
      {"GET /metrics http/1.1\r\n\r\n", 400, "version is not HTTP/D.D"},
      {"GET /metrics HTTP/2.0\r\n\r\n", 505, "only HTTP/1.0 and HTTP/1.1 are served"},
      {"GET /metrics HTTP/0.9\r\n\r\n", 505, "only HTTP/1.0 and HTTP/1.1 are served"},
  };
  for (const Case& c : cases) {
    Parsed p = Parse(c.in);
    EXPECT_EQ(p.result, HeadParse::kError) << c.in;
    EXPECT_EQ(p.status, c.status) << c.in;
    EXPECT_EQ(p.error, c.why) << c.in;
  }
}

TEST(ParseRequestHead, HeaderErrors) {
  struct Case {
    const char* headers;
    const char* why;
  };
  const Case cases[] = {
      {"Host x\r\n", "header line without ':'"},
      {"Host : x\r\n", "header name is not a token"},
      {"Host: x\r\n folded\r\n", "obsolete line folding in a header"},
      {"X: a\x01b\r\n", "control byte in a header value"},
      {"Content-Length: -1\r\n", "Content-Length is not a number"},
      {"Content-Length: 12345678901234567890\r\n", "Content-Length is not a number"},
      {"Content-Length: 5\r\nContent-Length: 6\r\n", "two different Content-Lengths"},
      {"Transfer-Encoding: chunked\r\nContent-Length: 5\r\n", "both Transfer-Encoding and Content-Length"},
  };
  for (const Case& c : cases) {
    std::string in = std::string("GET / HTTP/1.1\r\n") + c.headers + "\r\n";
    Parsed p = Parse(in);
    EXPECT_EQ(p.result, HeadParse::kError) << c.headers;
    EXPECT_EQ(p.status, 400) << c.headers;
    EXPECT_EQ(p.error, c.why) << c.headers;
  }
}

TEST(ParseRequestHead, Bodies) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n").head.has_body);
  EXPECT_TRUE(Parse("POST / HTTP/1.1\r\nContent-Length: 1073741824\r\n\r\n").head.has_body);
  EXPECT_TRUE(Parse("POST / HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\n").head.has_body);
  EXPECT_TRUE(Parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n").head.has_body);
}

TEST(ParseRequestHead, AcceptEncodingLinesJoined) {
  Parsed p = Parse("GET /metrics HTTP/1.1\r\naccept-encoding: identity;q=0.5\r\nAccept-Encoding:  gzip \r\n\r\n");
  ASSERT_EQ(p.result, HeadParse::kComplete);
  EXPECT_EQ(p.head.accept_encoding, "identity;q=0.5, gzip");
}

TEST(ParseRequestHead, LongHeadIs431) {
  std::string in = "GET / HTTP/1.1\r\nX: " + std::string(200, 'a');
  EXPECT_EQ(Parse(in, 256).result, HeadParse::kIncomplete);
  in += std::string(100, 'a');  // past 256 bytes without a line end
  Parsed p = Parse(in, 256);
  EXPECT_EQ(p.result, HeadParse::kError);
  EXPECT_EQ(p.status, 431);
  // Every line complete but the blank line past the limit: 431 as well.
  std::string lines = "GET / HTTP/1.1\r\n";
  while (lines.size() < 300) lines += "X: y\r\n";
  EXPECT_EQ(Parse(lines + "\r\n", 256).status, 431);
  // Exactly at the limit is fine.
  std::string fits = "GET / HTTP/1.1\r\nX: " + std::string(256 - 23, 'a') + "\r\n\r\n";
  ASSERT_EQ(fits.size(), 256u);
  EXPECT_EQ(Parse(fits, 256).result, HeadParse::kComplete);
}

}  // namespace
}  // namespace bottleneckd::request_head_test
