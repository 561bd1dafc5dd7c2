// The control socket's wire format (control/control_protocol.cc): request and
// answer parsing, formatting, round trips, and the peer credential check.
// Expected values follow docs/control-socket.md, derived by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control/control_socket.h"
#include "tests/support/test_util.h"

namespace bottleneckd::control_protocol_test {
namespace {

struct GoodRequest {
  std::string line;
  std::string verb;
  std::vector<std::string> args;
};

std::string Repeat(const std::string& s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(ControlProtocolTest, ParsesValidRequests) {
  // "start\tn\t" is 8 bytes, so a 4087-byte command and the newline make 4096.
  std::string max_command = Repeat("x", 4096 - 8 - 1);
  const std::vector<GoodRequest> cases = {
      {"status\n", "status", {}},
      {"status", "status", {}},
      {"start\techo 550M\n", "start", {"echo 550M"}},
      {"start\techo\t./udpecho -p 7 --copies 32\n", "start", {"echo", "./udpecho -p 7 --copies 32"}},
      {"stop\techo\n", "stop", {"echo"}},
      {"stop\techo\t0\n", "stop", {"echo", "0"}},
      {"stop\techo\t255\n", "stop", {"echo", "255"}},
      {"stop\techo\t007\n", "stop", {"echo", "007"}},
      {"start\t a b \n", "start", {" a b "}},
      {"start\tdurchsatz-\xc3\xbc-\xe6\xb5\x8b-\xf0\x9f\x9a\x80\n",
       "start",
       {"durchsatz-\xc3\xbc-\xe6\xb5\x8b-\xf0\x9f\x9a\x80"}},
      {"start\t" + Repeat("a", 200) + "\n", "start", {Repeat("a", 200)}},
      {"start\t" + Repeat("\xc3\xa9", 100) + "\n", "start", {Repeat("\xc3\xa9", 100)}},  // 200 bytes
      {"start\tn\t" + max_command + "\n", "start", {"n", max_command}},
      {"start\tn\t" + max_command, "start", {"n", max_command}},
      {"follow\techo\t4242\n", "follow", {"echo", "4242"}},
      {"follow\techo\t4194304\n", "follow", {"echo", "4194304"}},
  };
  for (const GoodRequest& c : cases) {
    SCOPED_TRACE(c.line.substr(0, 60));
    ControlRequest r;
    Status st = ParseControlRequest(c.line, &r);
    ASSERT_OK(st);
    EXPECT_EQ(r.verb, c.verb);
    EXPECT_EQ(r.args, c.args);
  }
}

struct BadRequest {
  std::string line;
  std::string message;  // a substring of the error
};

TEST(ControlProtocolTest, RejectsMalformedRequests) {
  const std::vector<BadRequest> cases = {
      {"", "empty request: expected start, follow, stop, discard or status"},
      {"\n", "empty request"},
      {"\tname\n", "empty request"},
      {"strat\tx\n", "unknown request 'strat': expected start, follow, stop, discard or status"},
      {"follow\n", "'follow' needs a run name: follow<TAB>NAME<TAB>PID"},
      {"follow\techo\n", "'follow' needs a pid: follow<TAB>NAME<TAB>PID"},
      {"follow\techo\t1\t2\n", "too many fields for 'follow' (4)"},
      {"follow\t\t1\n", "empty run name"},
      {"follow\techo\t0\n", "pid '0' is not an integer from 1 to 4194304"},
      {"follow\techo\t4194305\n", "pid '4194305' is not an integer from 1 to 4194304"},
      {"follow\techo\t-5\n", "pid '-5'"},
      {"follow\techo\tself\n", "pid 'self'"},
      {"STATUS\n", "unknown request 'STATUS'"},
      {"status\textra\n", "'status' takes no arguments (got 1)"},
      {"status\t\n", "'status' takes no arguments (got 1)"},
      {"start\n", "'start' needs a run name: start<TAB>NAME[<TAB>COMMAND]"},
      {"stop\n", "'stop' needs a run name: stop<TAB>NAME[<TAB>EXIT_CODE]"},
      {"start\ta\tb\tc\n", "too many fields for 'start' (4)"},
      {"stop\ta\t1\t2\n", "too many fields for 'stop' (4)"},
      {"start\t\n", "empty run name"},
      {"stop\t\t3\n", "empty run name"},
      {"start\t" + Repeat("a", 201) + "\n", "run name is 201 bytes; at most 200"},
      {"start\t" + Repeat("\xc3\xa9", 101) + "\n", "run name is 202 bytes; at most 200"},
      {"start\tx\t\n", "empty command field"},
      {"discard\n", "'discard' needs a run name: discard<TAB>NAME"},
      {"discard\ta\t1\n", "too many fields for 'discard' (3)"},
      {"discard\t\n", "empty run name"},
      {"stop\tx\tabc\n", "exit code 'abc' is not an integer from 0 to 255"},
      {"stop\tx\t256\n", "exit code '256' is not an integer from 0 to 255"},
      {"stop\tx\t-1\n", "exit code '-1'"},
      {"stop\tx\t+1\n", "exit code '+1'"},
      {"stop\tx\t1.5\n", "exit code '1.5'"},
      {"stop\tx\t 1\n", "exit code ' 1'"},
      {"stop\tx\t\n", "exit code ''"},
      {"stop\tx\t99999999999999999999999\n", "exit code '99999999999999999999999'"},
      // Control characters, with their byte offsets counted by hand.
      {"start\tna\x01me\n", "control character 0x01 at byte 8"},
      {"status\r\n", "a carriage return at byte 6"},
      {"status\n\n", "a newline at byte 6"},
      {"start\tx\nstop\tx\n", "a newline at byte 7"},
      {"start\ta\x7f\n", "control character 0x7f at byte 7"},
      {std::string("start\ta\0b\n", 10), "control character 0x00 at byte 7"},
      {"start\tx\t\x1b[31mred\n", "control character 0x1b at byte 8"},
      {"start\ta\xc2\x85\n", "control character U+0085 at byte 7"},
      // Invalid UTF-8: stray byte, overlongs, a surrogate, past U+10FFFF,
      // truncated sequences, a lone continuation byte.
      {"start\t\xff\n", "invalid UTF-8 at byte 6"},
      {"start\t\xc0\xaf\n", "invalid UTF-8 at byte 6"},
      {"start\ta\xe0\x80\xaf\n", "invalid UTF-8 at byte 7"},
      {"start\t\xed\xa0\x80\n", "invalid UTF-8 at byte 6"},
      {"start\t\xf4\x90\x80\x80\n", "invalid UTF-8 at byte 6"},
      {"start\t\xe2\x82", "invalid UTF-8 at byte 6"},
      {"start\t\xe2\x82\n", "invalid UTF-8 at byte 6"},
      {"start\t\x80\n", "invalid UTF-8 at byte 6"},
      // One byte over the limit: 8 + 4088 + newline = 4097.
      {"start\tn\t" + Repeat("x", 4088) + "\n", "request is 4097 bytes with its newline; at most 4096"},
      {"start\tn\t" + Repeat("x", 4088), "request is 4097 bytes with its newline"},
  };
  for (const BadRequest& c : cases) {
    SCOPED_TRACE(c.line.substr(0, 60));
    ControlRequest r;
    r.verb = "untouched";
    Status st = ParseControlRequest(c.line, &r);
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.code(), Status::Code::kInvalidArgument);
    EXPECT_NE(st.message().find(c.message), std::string::npos) << st.message();
    EXPECT_EQ(r.verb, "untouched");
  }
}

TEST(ControlProtocolTest, FramesRequestsAsTheyArrive) {
  struct Case {
    std::string buffered;
    RequestFrame want;
    size_t line_len;  // with kLine
  };
  const std::vector<Case> cases = {
      {"", RequestFrame::kPartial, 0},
      {"sta", RequestFrame::kPartial, 0},
      {"status\n", RequestFrame::kLine, 7},
      {"status\nstop\tx\n", RequestFrame::kLine, 7},  // the first line only
      {"\n", RequestFrame::kLine, 1},                 // empty: ParseControlRequest refuses it
      {std::string(4095, 'a') + "\n", RequestFrame::kLine, 4096},
      {std::string(4095, 'a') + "\nmore", RequestFrame::kLine, 4096},
      {std::string(4096, 'a'), RequestFrame::kPartial, 0},  // its newline may still come
      {std::string(4096, 'a') + "\n", RequestFrame::kOversize, 0},
      {std::string(4097, 'a'), RequestFrame::kOversize, 0},
      {std::string(5000, 'a') + "\n", RequestFrame::kOversize, 0},
  };
  for (const Case& c : cases) {
    size_t len = 0;
    EXPECT_EQ(FrameControlRequest(c.buffered, &len), c.want) << c.buffered.size() << " bytes";
    if (c.want == RequestFrame::kLine) {
      EXPECT_EQ(len, c.line_len) << c.buffered.size() << " bytes";
    }
  }
}

TEST(ControlProtocolTest, FormatsRequests) {
  ControlRequest r;
  r.verb = "status";
  EXPECT_EQ(FormatControlRequest(r), "status\n");
  r.verb = "start";
  r.args = {"echo 550M", "./udpecho --copies 32"};
  EXPECT_EQ(FormatControlRequest(r), "start\techo 550M\t./udpecho --copies 32\n");
  r.verb = "stop";
  r.args = {"echo 550M", "3"};
  r.pid = 42;  // credentials are not on the wire
  EXPECT_EQ(FormatControlRequest(r), "stop\techo 550M\t3\n");
}

TEST(ControlProtocolTest, RequestsRoundTrip) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"status", {}},
      {"start", {"r"}},
      {"start", {"sweep 500M", "iperf3 -u -b 500M"}},
      {"stop", {"sweep 500M"}},
      {"stop", {"sweep 500M", "137"}},
      {"start", {Repeat("\xe6\xb5\x8b", 66)}},  // 198 bytes
  };
  for (const auto& [verb, args] : cases) {
    ControlRequest in;
    in.verb = verb;
    in.args = args;
    ControlRequest back;
    ASSERT_TRUE(ParseControlRequest(FormatControlRequest(in), &back).ok()) << verb;
    EXPECT_EQ(back.verb, verb);
    EXPECT_EQ(back.args, args);
  }
}

TEST(ControlProtocolTest, FormatsAnswers) {
  ControlResponse ok;
  ok.ok = true;
  EXPECT_EQ(FormatControlResponse(ok), "ok\n");
  ok.body = "run echo: cpu (cpu1)\n";
  EXPECT_EQ(FormatControlResponse(ok), "ok\nrun echo: cpu (cpu1)\n");
  ControlResponse err;
  err.error = "no active run named 'x'";
  EXPECT_EQ(FormatControlResponse(err), "error\tno active run named 'x'\n");
  err.error = "two\nlines\r";  // the first line must stay one line
  EXPECT_EQ(FormatControlResponse(err), "error\ttwo lines \n");
  err.error = "";
  EXPECT_EQ(FormatControlResponse(err), "error\tunspecified error\n");
  err.error = "see below";
  err.body = "hint\n";
  EXPECT_EQ(FormatControlResponse(err), "error\tsee below\nhint\n");
}

TEST(ControlProtocolTest, ParsesAnswers) {
  struct Case {
    std::string text;
    bool ok;
    std::string error, body;
  };
  const std::vector<Case> cases = {
      {"ok\n", true, "", ""},
      {"ok", true, "", ""},
      {"ok\nrun a: cpu\nrun b: bus\n", true, "", "run a: cpu\nrun b: bus\n"},
      {"error\tno such run\n", false, "no such run", ""},
      {"error\tno such run", false, "no such run", ""},
      {"error\tbad\nhint\n", false, "bad", "hint\n"},
      {"error\ta\tb\n", false, "a\tb", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    ControlResponse r;
    Status st = ParseControlResponse(c.text, &r);
    ASSERT_OK(st);
    EXPECT_EQ(r.ok, c.ok);
    EXPECT_EQ(r.error, c.error);
    EXPECT_EQ(r.body, c.body);
  }
  for (std::string bad : {"", "\n", "OK\n", "okay\n", "ok \n", "ok\r\n", "error\n", "error\t\n", "error no tab\n",
                          "error\tx\ry\n", "hello"}) {
    SCOPED_TRACE(bad);
    ControlResponse r;
    Status st = ParseControlResponse(bad, &r);
    EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  }
}

TEST(ControlProtocolTest, AnswersRoundTrip) {
  std::vector<ControlResponse> cases(3);
  cases[0].ok = true;
  cases[0].body = "active runs: 1\n\tindented\n";
  cases[1].error = "request timed out: no complete line within 2 s";
  cases[2].error = "run 'x' failed";
  cases[2].body = "details\n";
  for (const ControlResponse& in : cases) {
    ControlResponse back;
    ASSERT_OK(ParseControlResponse(FormatControlResponse(in), &back));
    EXPECT_EQ(back.ok, in.ok);
    EXPECT_EQ(back.error, in.error);
    EXPECT_EQ(back.body, in.body);
  }
}

TEST(ControlProtocolTest, PeerAllowedTable) {
  struct Case {
    uid_t uid;
    gid_t gid;
    std::vector<gid_t> groups;
    uid_t daemon_uid;
    gid_t group;
    bool allowed;
  };
  const std::vector<Case> cases = {
      {0, 0, {}, 1000, 100, true},               // root
      {0, 5000, {}, 999, 998, true},             // root in no relevant group
      {1000, 1000, {}, 1000, 100, true},         // the daemon's own user
      {1001, 100, {}, 1000, 100, true},          // primary group is the socket's
      {1001, 1001, {27, 100}, 1000, 100, true},  // supplementary group
      {1001, 1001, {27, 44}, 1000, 100, false},  // other groups only
      {1001, 1001, {}, 1000, 100, false},
      {65534, 65534, {}, 0, 0, false},  // nobody against a root daemon, group root
      {65534, 65534, {0}, 0, 0, true},
      {1000, 100, {100}, 1001, 101, false},  // group 100 is not the socket's 101
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    EXPECT_EQ(PeerAllowed(c.uid, c.gid, c.groups, c.daemon_uid, c.group), c.allowed) << "case " << i;
  }
}

}  // namespace
}  // namespace bottleneckd::control_protocol_test
