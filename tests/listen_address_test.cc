// --web.listen-address forms.
#include "base/listen_address.h"

#include <gtest/gtest.h>

namespace bottleneckd {
namespace {

struct Case {
  const char* in;
  bool ok;
  const char* host;
  int port;
  bool ipv6;
  const char* civet;
};

TEST(ParseListenAddress, Table) {
  const Case cases[] = {
      {":9858", true, "", 9858, false, "+9858"},
      {"127.0.0.1:9858", true, "127.0.0.1", 9858, false, "127.0.0.1:9858"},
      {"localhost:80", true, "127.0.0.1", 80, false, "127.0.0.1:80"},
      {"[::1]:9858", true, "::1", 9858, true, "[::1]:9858"},
      {"[::]:0", true, "::", 0, true, "[::]:0"},
      {"0.0.0.0:65535", true, "0.0.0.0", 65535, false, "0.0.0.0:65535"},
  };
  for (const Case& c : cases) {
    ListenAddress a;
    Status s = ParseListenAddress(c.in, &a);
    ASSERT_TRUE(s.ok()) << c.in << ": " << s.ToString();
    EXPECT_EQ(a.host, c.host) << c.in;
    EXPECT_EQ(a.port, c.port) << c.in;
    EXPECT_EQ(a.ipv6, c.ipv6) << c.in;
    EXPECT_EQ(a.CivetPorts(), c.civet) << c.in;
  }
}

TEST(ParseListenAddress, Errors) {
  const std::pair<const char*, const char*> bad[] = {
      {"9858", "no port"},
      {"", "no port"},
      {":", "port must be a number"},
      {":65536", "port must be a number"},
      {":-1", "port must be a number"},
      {":98x", "port must be a number"},
      {"::1:9858", "IPv6 addresses need brackets"},
      {"[::1]9858", "missing ']:'"},
      {"[nope]:1", "is not an IPv6 address"},
      {"example.com:80", "is not an IPv4 address or localhost"},
      {"300.1.1.1:80", "is not an IPv4 address"},
  };
  for (const auto& [in, why] : bad) {
    ListenAddress a;
    Status s = ParseListenAddress(in, &a);
    EXPECT_FALSE(s.ok()) << in;
    EXPECT_NE(s.message().find(why), std::string::npos) << in << ": " << s.message();
    EXPECT_NE(s.message().find("expected :PORT"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace bottleneckd
