// The pcap report: PcapReportText / PcapReportJson on summaries built by
// hand, and RunPcapCommand on capture files the tests write
// (tests/support/pcap_test_util.h) with stdout and stderr redirected to files.
#include "exporters/report/pcap_report.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "tests/support/pcap_test_util.h"
#include "tests/support/test_util.h"

namespace bottleneckd::pcap_report_test {
namespace {

using testing::TempDir;

constexpr int64_t kS = 1700000000;

// A small JSON parser: enough to check that the output is JSON and to read
// values back by key.
struct Json {
  enum Type { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<Json> items;
  // An object's members, keys and values side by side (a vector of pairs
  // would need Json complete here: clang with libstdc++ rejects it).
  std::vector<std::string> keys;
  std::vector<Json> values;

  const Json& operator[](const std::string& key) const;
  const Json& operator[](size_t i) const;
};

const Json& Json::operator[](const std::string& key) const {
  for (size_t i = 0; i < keys.size(); ++i)
    if (keys[i] == key) return values[i];
  ADD_FAILURE() << "no key " << key;
  static const Json none;
  return none;
}
const Json& Json::operator[](size_t i) const {
  static const Json none;
  if (i < items.size()) return items[i];
  ADD_FAILURE() << "no item " << i;
  return none;
}

class JsonParser {
 public:
  explicit JsonParser(const std::string& s) : s_(s) {}
  // Parses the whole text (trailing whitespace allowed); false on any error.
  bool Parse(Json* out) {
    if (!Value(out)) return false;
    Space();
    return i_ == s_.size();
  }

 private:
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }
  bool Literal(const char* w) {
    size_t n = std::strlen(w);
    if (s_.compare(i_, n, w) != 0) return false;
    i_ += n;
    return true;
  }
  bool String(std::string* out) {
    if (s_[i_] != '"') return false;
    for (++i_; i_ < s_.size(); ++i_) {
      char c = s_[i_];
      if (c == '"') {
        ++i_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (++i_ >= s_.size()) return false;
      switch (s_[i_]) {
        case '"': *out += '"'; break;
        case '\\': *out += '\\'; break;
        case '/': *out += '/'; break;
        case 'n': *out += '\n'; break;
        case 't': *out += '\t'; break;
        case 'r': *out += '\r'; break;
        case 'b': *out += '\b'; break;
        case 'f': *out += '\f'; break;
        case 'u': {
          if (i_ + 4 >= s_.size()) return false;
          unsigned v = static_cast<unsigned>(std::stoul(s_.substr(i_ + 1, 4), nullptr, 16));
          if (v >= 0x80) return false;  // not needed here
          *out += static_cast<char>(v);
          i_ += 4;
          break;
        }
        default: return false;
      }
    }
    return false;
  }
  bool Value(Json* v) {
    Space();
    if (i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') {
      v->type = Json::kObject;
      ++i_;
      Space();
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, true;
      for (;;) {
        Space();
        std::string key;
        if (i_ >= s_.size() || !String(&key)) return false;
        Space();
        if (i_ >= s_.size() || s_[i_++] != ':') return false;
        Json m;
        if (!Value(&m)) return false;
        v->keys.push_back(std::move(key));
        v->values.push_back(std::move(m));
        Space();
        if (i_ >= s_.size()) return false;
        if (s_[i_] == '}') return ++i_, true;
        if (s_[i_++] != ',') return false;
      }
    }
    if (c == '[') {
      v->type = Json::kArray;
      ++i_;
      Space();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, true;
      for (;;) {
        Json m;
        if (!Value(&m)) return false;
        v->items.push_back(std::move(m));
        Space();
        if (i_ >= s_.size()) return false;
        if (s_[i_] == ']') return ++i_, true;
        if (s_[i_++] != ',') return false;
      }
    }
    if (c == '"') return v->type = Json::kString, String(&v->str);
    if (Literal("null")) return v->type = Json::kNull, true;
    if (Literal("true")) return v->type = Json::kBool, v->boolean = true, true;
    if (Literal("false")) return v->type = Json::kBool, v->boolean = false, true;
    size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    while (i_ < s_.size() && std::strchr("0123456789.eE+-", s_[i_]) != nullptr) ++i_;
    if (i_ == start) return false;
    char* end = nullptr;
    std::string num = s_.substr(start, i_ - start);
    v->type = Json::kNumber;
    v->number = std::strtod(num.c_str(), &end);
    return end == num.c_str() + num.size();
  }

  const std::string& s_;
  size_t i_ = 0;
};

Json ParseJsonOrFail(const std::string& text) {
  Json j;
  EXPECT_TRUE(JsonParser(text).Parse(&j)) << text;
  return j;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::vector<std::string> Tokens(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

// The tokens of the first table line whose first token is `label`.
std::vector<std::string> Row(const std::string& text, const std::string& label) {
  for (const std::string& l : Lines(text)) {
    std::vector<std::string> t = Tokens(l);
    if (!t.empty() && t[0] == label) return t;
  }
  ADD_FAILURE() << "no row " << label << " in\n" << text;
  return {};
}

bool Contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

FlowKey EchoKey() {
  FlowKey k;
  k.protocol = 17;
  k.src = {10, 0, 0, 1};
  k.dst = {10, 0, 0, 2};
  k.src_port = 40000;
  k.dst_port = 7;
  return k;
}

// Three seconds of echo by hand: 10 requests (1000 bytes) and 8 replies
// (800 bytes) in the first, nothing in the second, 20 requests (2000 bytes)
// and 21 replies (2100 bytes) in the third; 30 requests, 29 replies, 28
// paired, 2 lost, over 2 s (S + 0.5 to S + 2.5).
PcapReport HandReport() {
  PcapReport r;
  r.info.path = "/captures/echo.pcap";
  r.info.linktype = 1;
  r.info.linktype_name = "EN10MB";
  r.info.snaplen = 262144;
  r.info.frames = 60;
  r.info.nanosecond = true;
  TrafficSummary& s = r.summary;
  s.packets = 60;
  s.bytes = 5900 + 42;
  s.ip_packets = 59;
  s.not_ip = 1;
  s.udp = 59;
  s.fragments = 2;
  s.vlan_tagged = 3;
  s.ipv6 = 4;
  s.truncated = 5;
  s.malformed = 6;
  s.sizes[0] = 1;
  s.sizes[1] = 59;
  s.requests = 30;
  s.replies = 29;
  s.paired = 28;
  s.lost = 2;
  s.unmatched_replies = 1;
  s.first_ts = kS + 0.5;
  s.last_ts = kS + 2.5;
  s.seconds = {TrafficSecond{.second = kS,
                             .packets = 19,
                             .bytes = 1800,
                             .requests = 10,
                             .replies = 8,
                             .paired = 8,
                             .request_bytes = 1000,
                             .reply_bytes = 800},
               TrafficSecond{.second = kS + 1},
               TrafficSecond{.second = kS + 2,
                             .packets = 41,
                             .bytes = 4100,
                             .requests = 20,
                             .replies = 21,
                             .paired = 20,
                             .request_bytes = 2000,
                             .reply_bytes = 2100}};
  for (int i = 0; i < 27; ++i) s.turnaround.Add(300e-6);
  s.turnaround.Add(1e-3);
  FlowStats f;
  f.key = EchoKey();
  f.requests = 30;
  f.replies = 29;
  f.paired = 28;
  f.lost = 2;
  f.packets = 59;
  f.bytes = 5900;
  s.top_flows = {f};
  s.lossy_flows = {f};
  return r;
}

// The number after `label` in `text` ("p50 " -> 300.0).
double NumberAfter(const std::string& text, const std::string& label) {
  size_t at = text.find(label);
  if (at == std::string::npos) {
    ADD_FAILURE() << "no " << label << " in " << text;
    return -1;
  }
  return std::strtod(text.c_str() + at + label.size(), nullptr);
}

TEST(PcapReportText, HeaderCountersAndTable) {
  std::string t = PcapReportText({HandReport()});
  EXPECT_EQ(Lines(t)[0], "/captures/echo.pcap: EN10MB (link type 1), snaplen 262144, 60 frames in 2.000 s") << t;
  for (const char* c : {"not IP 1", "truncated 5", "malformed 6", "fragments 2", "VLAN-tagged 3", "IPv6 4"}) {
    EXPECT_TRUE(Contains(t, c)) << c << "\n" << t;
  }
  // second, applied/s, echoed/s, applied Mbit/s (bytes * 8 / 1e6), echoed Mbit/s, loss %.
  EXPECT_EQ(Row(t, "0"), (std::vector<std::string>{"0", "10", "8", "0.008", "0.006", "20.00"}));
  EXPECT_EQ(Row(t, "1"), (std::vector<std::string>{"1", "0", "0", "0.000", "0.000", "-"}));
  EXPECT_EQ(Row(t, "2"), (std::vector<std::string>{"2", "20", "21", "0.016", "0.017", "-5.00"}));
  // Over 2 s: 30 / 2, 29 / 2, 3000 B * 8 / 2 s, 2900 B * 8 / 2 s; 1 - 29 / 30.
  EXPECT_EQ(Row(t, "overall"), (std::vector<std::string>{"overall", "15", "14.5", "0.012", "0.012", "3.33"}));
  // Pairing: 2 lost of 28 + 2 answered or lost.
  EXPECT_TRUE(Contains(t,
                       "requests 30, replies 29; UDP echo: paired 28, lost 2 (6.67 % of those answered or lost), "
                       "unmatched replies 1,"))
      << t;
  EXPECT_FALSE(Contains(t, "rows of"));
}

TEST(PcapReportText, TurnaroundFlowsSizes) {
  std::string t = PcapReportText({HandReport()});
  // 27 of 28 at 300 us, one at 1 ms: p50 and p90 300 us, p99 and max 1 ms (1 %).
  EXPECT_NEAR(NumberAfter(t, "p50 "), 300, 3) << t;
  EXPECT_NEAR(NumberAfter(t, "p90 "), 300, 3) << t;
  EXPECT_NEAR(NumberAfter(t, "p99 "), 1000, 10) << t;
  EXPECT_NEAR(NumberAfter(t, "max "), 1000, 10) << t;
  EXPECT_TRUE(Contains(t, "turnaround (28 pairs)")) << t;
  std::string key = EchoKey().ToString();
  EXPECT_TRUE(Contains(t, key + ": 30 requests, 29 replies, 2 lost (6.67 %)")) << t;
  EXPECT_TRUE(Contains(t, key + ": 59 packets, 5900 bytes, 30 requests, 29 replies")) << t;
  // 1 and 59 of 60 frames: 1.7 % and 98.3 %.
  EXPECT_EQ(Row(t, "<="), (std::vector<std::string>{"<=", "64", "1", "1.7", "%"}));
  EXPECT_EQ(Row(t, "65-128"), (std::vector<std::string>{"65-128", "59", "98.3", "%"}));
  EXPECT_EQ(Row(t, "1519-9018"), (std::vector<std::string>{"1519-9018", "0", "0.0", "%"}));
  EXPECT_EQ(Row(t, ">"), (std::vector<std::string>{">", "9018", "0", "0.0", "%"}));
}

TEST(PcapReportText, EvictedTopFlowShowsItsRange) {
  PcapReport r = HandReport();
  ASSERT_FALSE(r.summary.top_flows.empty());
  // Space-saving: 59 counted, up to 40 of them inherited from evicted flows.
  r.summary.top_flows[0].packets_error = 40;
  std::string t = PcapReportText({r});
  EXPECT_TRUE(Contains(t, EchoKey().ToString() + ": 19 to 59 packets, 5900 bytes")) << t;
  std::string j = PcapReportJson({r});
  EXPECT_TRUE(Contains(j, "\"packets_error\":40,\"packets\":59")) << j;
}

TEST(PcapReportText, LongCapturesAggregateRows) {
  // 300 seconds of 10 requests and 9 replies: 100 rows of 3 s.
  PcapReport r;
  r.info.path = "long.pcap";
  r.summary.packets = 5700;
  r.summary.first_ts = kS;
  r.summary.last_ts = kS + 299.5;
  for (int i = 0; i < 300; ++i)
    r.summary.seconds.push_back(TrafficSecond{.second = kS + i, .requests = 10, .replies = 9});
  std::string t = PcapReportText({r});
  EXPECT_TRUE(Contains(t, "100 rows of 3 s each")) << t;
  EXPECT_EQ(Row(t, "0-2"), (std::vector<std::string>{"0-2", "10", "9", "0.000", "0.000", "10.00"}));
  EXPECT_EQ(Row(t, "297-299").size(), 6u);
  // 121 seconds: rows of 2 s, the last one 1 s wide (its rate is over 1 s).
  r.summary.seconds.resize(121);
  r.summary.seconds[118].requests = 4;
  r.summary.seconds[120].requests = 7;
  t = PcapReportText({r});
  EXPECT_TRUE(Contains(t, "61 rows of 2 s each")) << t;
  EXPECT_EQ(Row(t, "118-119")[1], "7");  // (4 + 10) / 2
  EXPECT_EQ(Row(t, "120")[1], "7");
  EXPECT_FALSE(Contains(t, "\n  121")) << t;
}

TEST(PcapReportText, FileThatStoppedOrNeverOpened) {
  PcapReport cut = HandReport();
  cut.error = "/captures/echo.pcap: packet 61: truncated dump file";
  PcapReport missing;
  missing.info.path = "/captures/none.pcap";
  missing.error = "/captures/none.pcap: No such file or directory";
  std::string t = PcapReportText({cut, missing});
  EXPECT_TRUE(Contains(t, "  read stopped: /captures/echo.pcap: packet 61: truncated dump file\n")) << t;
  EXPECT_TRUE(Contains(t, "\n/captures/none.pcap: 0 frames in 0.000 s\n  read stopped: /captures/none.pcap: No such"))
      << t;
  EXPECT_EQ(Row(t, "overall")[1], "15");  // what was read is still reported
}

TEST(PcapReportJson, EveryFigureParsesBack) {
  PcapReport r = HandReport();
  r.info.path = "/captures/\"odd\"\nname.pcap";
  PcapReport missing;
  missing.info.path = "/captures/none.pcap";
  missing.error = "/captures/none.pcap: No such file or directory";
  std::string text = PcapReportJson({r, missing});
  Json j = ParseJsonOrFail(text);
  ASSERT_EQ(j["files"].items.size(), 2u);
  const Json& f = j["files"][0];
  EXPECT_EQ(f["path"].str, r.info.path);
  EXPECT_EQ(f["linktype"].number, 1);
  EXPECT_EQ(f["linktype_name"].str, "EN10MB");
  EXPECT_EQ(f["snaplen"].number, 262144);
  EXPECT_EQ(f["frames"].number, 60);
  EXPECT_TRUE(f["nanosecond"].boolean);
  EXPECT_EQ(f["error"].type, Json::kNull);
  EXPECT_NEAR(f["first_timestamp"].number, kS + 0.5, 1e-6);
  EXPECT_NEAR(f["last_timestamp"].number, kS + 2.5, 1e-6);
  EXPECT_EQ(f["duration_seconds"].number, 2);
  EXPECT_EQ(f["packets"].number, 60);
  EXPECT_EQ(f["bytes"].number, 5942);
  EXPECT_EQ(f["not_ip"].number, 1);
  EXPECT_EQ(f["truncated"].number, 5);
  EXPECT_EQ(f["malformed"].number, 6);
  EXPECT_EQ(f["fragments"].number, 2);
  EXPECT_EQ(f["vlan_tagged"].number, 3);
  EXPECT_EQ(f["ipv6"].number, 4);
  EXPECT_EQ(f["requests"].number, 30);
  EXPECT_EQ(f["replies"].number, 29);
  EXPECT_EQ(f["paired"].number, 28);
  EXPECT_EQ(f["lost"].number, 2);
  EXPECT_EQ(f["unmatched_replies"].number, 1);
  EXPECT_NEAR(f["loss_ratio"].number, 2.0 / 30, 1e-9);
  EXPECT_NEAR(f["echo_deficit_ratio"].number, 1.0 / 30, 1e-9);
  EXPECT_EQ(f["applied_per_second"].number, 15);
  EXPECT_EQ(f["echoed_per_second"].number, 14.5);
  EXPECT_EQ(f["applied_bits_per_second"].number, 12000);  // 3000 B * 8 / 2 s
  EXPECT_EQ(f["echoed_bits_per_second"].number, 11600);
  const Json& ta = f["turnaround_seconds"];
  EXPECT_EQ(ta["count"].number, 28);
  EXPECT_NEAR(ta["p50"].number, 300e-6, 3e-6);
  EXPECT_NEAR(ta["p99"].number, 1e-3, 1e-5);
  EXPECT_NEAR(ta["max"].number, 1e-3, 1e-5);
  ASSERT_EQ(f["seconds"].items.size(), 3u);
  EXPECT_EQ(f["seconds"][2]["second"].number, kS + 2);
  EXPECT_EQ(f["seconds"][2]["offset"].number, 2);
  EXPECT_EQ(f["seconds"][2]["requests"].number, 20);
  EXPECT_EQ(f["seconds"][2]["replies"].number, 21);
  EXPECT_EQ(f["seconds"][2]["reply_bytes"].number, 2100);
  EXPECT_EQ(f["seconds"][1]["packets"].number, 0);
  ASSERT_EQ(f["sizes"].items.size(), kSizeBuckets);
  EXPECT_EQ(f["sizes"][0]["max_bytes"].number, 64);
  EXPECT_EQ(f["sizes"][1]["frames"].number, 59);
  EXPECT_EQ(f["sizes"][kSizeBuckets - 1]["max_bytes"].type, Json::kNull);
  const Json& flow = f["lossy_flows"][0];
  EXPECT_EQ(flow["flow"].str, EchoKey().ToString());
  EXPECT_EQ(flow["src"].str, "10.0.0.1");
  EXPECT_EQ(flow["src_port"].number, 40000);
  EXPECT_EQ(flow["dst"].str, "10.0.0.2");
  EXPECT_EQ(flow["dst_port"].number, 7);
  EXPECT_EQ(flow["protocol"].number, 17);
  EXPECT_EQ(flow["lost"].number, 2);
  EXPECT_NEAR(flow["loss_ratio"].number, 2.0 / 30, 1e-9);
  EXPECT_EQ(f["top_flows"][0]["packets"].number, 59);
  const Json& m = j["files"][1];
  EXPECT_EQ(m["error"].str, missing.error);
  EXPECT_EQ(m["linktype"].type, Json::kNull);
  EXPECT_EQ(m["first_timestamp"].type, Json::kNull);
  EXPECT_EQ(m["applied_per_second"].type, Json::kNull);  // no duration
  EXPECT_EQ(m["loss_ratio"].type, Json::kNull);
  EXPECT_EQ(m["turnaround_seconds"]["p50"].type, Json::kNull);
  EXPECT_EQ(m["seconds"].items.size(), 0u);
}

struct Captured {
  int rc = -1;
  std::string out, err;
};

// RunPcapCommand with stdout and stderr redirected to files.
Captured RunCaptured(const std::vector<std::string>& files, const std::string& format, const TrafficOptions& o = {}) {
  TempDir d;
  std::string out_path = d.path() + "/out", err_path = d.path() + "/err";
  std::fflush(stdout);
  std::fflush(stderr);
  int saved_out = ::dup(1), saved_err = ::dup(2);
  int fo = ::open(out_path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  int fe = ::open(err_path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0600);
  ::dup2(fo, 1);
  ::dup2(fe, 2);
  ::close(fo);
  ::close(fe);
  Captured c;
  c.rc = RunPcapCommand(files, format, o);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(saved_out, 1);
  ::dup2(saved_err, 2);
  ::close(saved_out);
  ::close(saved_err);
  c.out = testing::ReadFileOrDie(out_path);
  c.err = testing::ReadFileOrDie(err_path);
  return c;
}

// The echo of tests/traffic/pcap_file_test.cc: 200 requests every 10 ms from
// S + 0.4999 s, replies 300 us later but for i = 19, 39, ..., 199, and an ARP
// frame at S + 3.9999 s: 391 frames over 3.5 s.
std::vector<testing::TestFrame> Echo() {
  testing::EchoSpec e;
  e.start_sec = kS;
  e.start_nsec = 499900000;
  std::vector<testing::TestFrame> f = testing::EchoFrames(e);
  f.push_back(testing::TestFrame{kS + 3, 999900000, testing::ArpFrame()});
  return f;
}

TEST(RunPcapCommand, BadArgumentsExitTwo) {
  Captured c = RunCaptured({"x.pcap"}, "xml");
  EXPECT_EQ(c.rc, 2);
  EXPECT_EQ(c.out, "");
  EXPECT_TRUE(Contains(c.err, "xml")) << c.err;
  c = RunCaptured({}, "text");
  EXPECT_EQ(c.rc, 2);
  EXPECT_EQ(c.out, "");
}

TEST(RunPcapCommand, GoodCaptureAsJson) {
  TempDir d;
  std::string path = d.path() + "/echo.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, Echo()), "");
  Captured c = RunCaptured({path}, "json");
  EXPECT_EQ(c.rc, 0);
  EXPECT_EQ(c.err, "");  // stderr is a file here: no progress
  Json j = ParseJsonOrFail(c.out);
  const Json& f = j["files"][0];
  EXPECT_EQ(f["frames"].number, 391);
  EXPECT_EQ(f["requests"].number, 200);
  EXPECT_EQ(f["replies"].number, 190);
  EXPECT_EQ(f["lost"].number, 10);
  EXPECT_NEAR(f["loss_ratio"].number, 0.05, 1e-12);          // 10 of 200
  EXPECT_NEAR(f["echo_deficit_ratio"].number, 0.05, 1e-12);  // 1 - 190 / 200
  EXPECT_NEAR(f["duration_seconds"].number, 3.5, 1e-6);
  EXPECT_NEAR(f["applied_per_second"].number, 200 / 3.5, 1e-4);
  EXPECT_NEAR(f["echoed_per_second"].number, 190 / 3.5, 1e-4);
  EXPECT_NEAR(f["turnaround_seconds"]["p50"].number, 300e-6, 3e-6);
  // Per second, by hand (pcap_file_test.cc): 51/48, 100/95, 49/47, 0/0.
  ASSERT_EQ(f["seconds"].items.size(), 4u);
  const double want[4][2] = {{51, 48}, {100, 95}, {49, 47}, {0, 0}};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(f["seconds"][i]["offset"].number, static_cast<double>(i));
    EXPECT_EQ(f["seconds"][i]["requests"].number, want[i][0]) << i;
    EXPECT_EQ(f["seconds"][i]["replies"].number, want[i][1]) << i;
  }
}

// `bottleneckd pcap` on an echo whose requests all carry one payload: 1000
// requests every 1 ms from S, replies 5 us later except for i % 50 == 0 (20
// unanswered). Each reply pairs with the request just before it, so the
// turnaround is 5 us throughout and the 20 unanswered are lost, none waiting
// at the end (2 % of 1000).
TEST(RunPcapCommand, IdenticalPayloadEchoReportsItsLoss) {
  const testing::Ip4 c = {10, 0, 0, 1}, v = {10, 0, 0, 2};
  const testing::Bytes payload = testing::Payload(7, 64);
  const testing::Bytes request = testing::Ethernet(0x0800, testing::Ipv4Udp(c, v, 40000, 7, payload), {}, 1, 2);
  const testing::Bytes reply = testing::Ethernet(0x0800, testing::Ipv4Udp(v, c, 7, 40000, payload), {}, 2, 1);
  std::vector<testing::TestFrame> frames;
  for (uint64_t i = 0; i < 1000; ++i) {
    frames.push_back(testing::At(kS, i * 1000000, request));
    if (i % 50 != 0) frames.push_back(testing::At(kS, i * 1000000 + 5000, reply));
  }
  TempDir d;
  std::string path = d.path() + "/same.pcap";
  ASSERT_EQ(testing::WritePcap(path, 1, 65535, frames), "");
  Captured r = RunCaptured({path}, "text");
  EXPECT_EQ(r.rc, 0) << r.err;
  const std::string& t = r.out;
  EXPECT_TRUE(Contains(t, "UDP echo: paired 980, lost 20 (2.00 % of those answered or lost)")) << t;
  EXPECT_TRUE(Contains(t, "waiting at the end 0,")) << t;
  // 5 us, to the 0.24 us resolution of double seconds near 1.7e9 s.
  EXPECT_NEAR(NumberAfter(t, "p90 "), 5, 0.5) << t;
  EXPECT_NEAR(NumberAfter(t, "p99 "), 5, 0.5) << t;
  EXPECT_TRUE(Contains(t, "udp 10.0.0.1:40000 > 10.0.0.2:7: 1000 requests, 980 replies, 20 lost (2.00 %)")) << t;
}

TEST(RunPcapCommand, ReportsWhatWasReadThenTheErrors) {
  TempDir d;
  std::string good = d.path() + "/good.pcap", cut = d.path() + "/cut.pcap", missing = d.path() + "/missing.pcap";
  std::vector<testing::TestFrame> frames = Echo();
  ASSERT_EQ(testing::WritePcap(good, 1, 65535, frames), "");
  ASSERT_EQ(testing::WritePcap(cut, 1, 65535, frames), "");
  std::filesystem::resize_file(cut, std::filesystem::file_size(cut) - (16 + 42) / 2);  // half the ARP record
  Captured c = RunCaptured({good, cut, missing}, "text");
  EXPECT_EQ(c.rc, 1);
  // Text: each file's report, the cut one with the 390 frames before the cut.
  EXPECT_TRUE(Contains(c.out, good + ": EN10MB (link type 1), snaplen 65535, 391 frames in 3.500 s\n")) << c.out;
  EXPECT_TRUE(Contains(c.out, cut + ": EN10MB (link type 1), snaplen 65535, 390 frames in 1.990 s\n")) << c.out;
  // A file that gave no frame has no report (half a report of zeros was
  // printed), only its error.
  EXPECT_FALSE(Contains(c.out, missing)) << c.out;
  // Then one stderr line per failed file, in order.
  std::vector<std::string> err = Lines(c.err);
  ASSERT_EQ(err.size(), 2u) << c.err;
  EXPECT_EQ(err[0].rfind("bottleneckd: pcap: " + cut + ": packet 391: ", 0), 0u) << err[0];
  EXPECT_EQ(err[1], "bottleneckd: pcap: " + missing + ": No such file or directory");

  c = RunCaptured({missing}, "text");
  EXPECT_EQ(c.rc, 1);
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.err, "bottleneckd: pcap: " + missing + ": No such file or directory\n");

  c = RunCaptured({cut}, "json");
  EXPECT_EQ(c.rc, 1);
  Json j = ParseJsonOrFail(c.out);
  EXPECT_EQ(j["files"][0]["frames"].number, 390);
  EXPECT_TRUE(Contains(j["files"][0]["error"].str, "packet 391")) << c.out;
  EXPECT_EQ(j["files"][0]["requests"].number, 200);
}

TEST(RunPcapCommand, UnsupportedLinkTypeExitsOne) {
  TempDir d;
  std::string path = d.path() + "/user0.pcap";
  ASSERT_EQ(testing::WritePcap(path, 147, 65535, {testing::TestFrame{kS, 0, testing::Bytes(30, 1)}}), "");
  Captured c = RunCaptured({path}, "text");
  EXPECT_EQ(c.rc, 1);
  EXPECT_TRUE(Contains(c.out, path + ": unknown (link type 147), snaplen 65535, 1 frames")) << c.out;
  EXPECT_EQ(c.err, "bottleneckd: pcap: " + path +
                       ": link type 147 (unknown) is not supported: 1 frames counted, not analysed\n");
}

}  // namespace
}  // namespace bottleneckd::pcap_report_test
