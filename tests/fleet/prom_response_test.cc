// ParseMatrixResponse against answers written by hand in the shapes the
// Prometheus HTTP API documents (querying/api: "Range queries", "Format
// overview") and VictoriaMetrics adds (isPartial), and against broken ones.
#include "fleet/prom_response.h"

#include <gtest/gtest.h>

#include <cmath>

namespace bottleneckd::prom_response_test {
namespace {

TEST(PromResponse, ReadsAMatrixWithItsLabelsPointsAndWarnings) {
  PromMatrix m;
  ASSERT_TRUE(ParseMatrixResponse(R"({"status":"success","warnings":["remote read of site-b failed"],
    "data":{"resultType":"matrix","result":[
      {"metric":{"__name__":"bottleneckd_verdict_info","bound":"cpu","instance":"gen:9858"},
       "values":[[1700000000,"1"],[1700000001.5,"1"]]},
      {"metric":{"instance":"box:9858"},"values":[[1700000000,"NaN"],[1700000001,"+Inf"],[1700000002,"-0.25"]]}]}})",
                                  200, &m)
                  .ok());
  ASSERT_EQ(m.series.size(), 2u);
  EXPECT_EQ(m.series[0].labels.at("bound"), "cpu");
  EXPECT_EQ(m.series[0].labels.at("instance"), "gen:9858");
  ASSERT_EQ(m.series[0].points.size(), 2u);
  EXPECT_EQ(m.series[0].points[1].first, 1700000001.5);
  EXPECT_EQ(m.series[0].points[1].second, 1);
  EXPECT_TRUE(std::isnan(m.series[1].points[0].second));
  EXPECT_TRUE(std::isinf(m.series[1].points[1].second));
  EXPECT_EQ(m.series[1].points[2].second, -0.25);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_EQ(m.warnings[0], "remote read of site-b failed");
}

TEST(PromResponse, VictoriaMetricsPartialAnswerBecomesAWarning) {
  PromMatrix m;
  ASSERT_TRUE(ParseMatrixResponse(R"({"status":"success","isPartial":true,"data":{"resultType":"matrix","result":[]}})",
                                  200, &m)
                  .ok());
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("partial"), std::string::npos);
}

TEST(PromResponse, AnApiErrorCarriesItsTypeAndMessage) {
  PromMatrix m;
  Status s = ParseMatrixResponse(
      R"({"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected \"}\""})", 400, &m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "answered HTTP 400 (bad_data): 1:5: parse error: unexpected \"}\"");
}

TEST(PromResponse, AnHttpErrorWithoutJsonShowsTheBodysStart) {
  PromMatrix m;
  Status s = ParseMatrixResponse("<html>\n<h1>502 Bad Gateway</h1></html>", 502, &m);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "answered HTTP 502: <html> <h1>502 Bad Gateway</h1></html>");
  EXPECT_EQ(ParseMatrixResponse("", 500, &m).message(), "answered HTTP 500 with an empty body");
}

TEST(PromResponse, MalformedAnswersSayWhatIsWrong) {
  struct Case {
    const char* body;
    const char* says;
  };
  const Case cases[] = {
      {"not json at all", "not JSON"},
      {R"({"data":{}})", "no \"status\""},
      {R"({"status":"success"})", "no \"data\" object"},
      {R"({"status":"success","data":{"resultType":"vector","result":[]}})", "resultType is \"vector\", not matrix"},
      {R"({"status":"success","data":{"resultType":"matrix"}})", "no result array"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[]}]}})",
       "series 0 of the answer: no "
       "\"metric\" object"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{"a":1},"values":[]}]}})",
       "label a is not a string"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,"x"]]}]}})",
       "value \"x\" is not a number"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[1,1]]}]}})",
       "value 1 is not a number"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[[2,"1"],[1,"1"]]}]}})",
       "points out of time order"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[["1","1"]]}]}})",
       "not [time, \"value\"]"},
  };
  for (const Case& c : cases) {
    PromMatrix m;
    Status s = ParseMatrixResponse(c.body, 200, &m);
    EXPECT_FALSE(s.ok()) << c.body;
    EXPECT_NE(s.message().find(c.says), std::string::npos) << c.body << " -> " << s.message();
  }
}

TEST(PromResponse, ControlBytesInAnErrorAreNotPrinted) {
  PromMatrix m;
  Status s = ParseMatrixResponse("\x1b[31mred\x1b[0m\nnext", 500, &m);
  EXPECT_EQ(s.message().find('\x1b'), std::string::npos) << s.message();
  EXPECT_EQ(s.message().find('\n'), std::string::npos) << s.message();
}

}  // namespace
}  // namespace bottleneckd::prom_response_test
