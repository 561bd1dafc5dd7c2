#include "fleet/prom_response.h"

#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace bottleneckd {

namespace {

using nlohmann::json;

// At most `n` bytes of `body` for an error message, made printable.
std::string Excerpt(std::string_view body, size_t n = 200) {
  std::string s;
  for (char c : body.substr(0, n)) s += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? ' ' : c;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  std::string out;
  AppendValidUtf8(s, &out);
  if (body.size() > n) out += "...";
  return out;
}

// A sample value: the API writes it as a string ("0.5", "NaN", "+Inf").
bool ParseValue(const json& v, double* out) {
  if (!v.is_string()) return false;
  const std::string& s = v.get_ref<const std::string&>();
  if (s == "NaN") {
    *out = std::nan("");
    return true;
  }
  if (s == "+Inf" || s == "Inf") {
    *out = HUGE_VAL;
    return true;
  }
  if (s == "-Inf") {
    *out = -HUGE_VAL;
    return true;
  }
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

Status ParseSeries(const json& item, size_t index, size_t* points_total, PromSeries* out) {
  auto bad = [&](const std::string& what) {
    return Status::Corruption("series " + std::to_string(index) + " of the answer: " + what);
  };
  if (!item.is_object()) return bad("not an object");
  auto metric = item.find("metric");
  if (metric == item.end() || !metric->is_object()) return bad("no \"metric\" object");
  for (const auto& [k, v] : metric->items()) {
    if (!v.is_string()) return bad("label " + k + " is not a string");
    out->labels[k] = v.get<std::string>();
  }
  auto values = item.find("values");
  if (values == item.end() || !values->is_array()) return bad("no \"values\" array");
  out->points.reserve(values->size());
  for (const json& p : *values) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number())
      return bad("a point is not [time, \"value\"]: " + Excerpt(p.dump(), 80));
    double t = p[0].get<double>(), v = 0;
    if (!ParseValue(p[1], &v)) return bad("value " + Excerpt(p[1].dump(), 40) + " is not a number");
    if (!out->points.empty() && t <= out->points.back().first)
      return bad("points out of time order at " + std::to_string(t));
    out->points.emplace_back(t, v);
  }
  *points_total += out->points.size();
  if (*points_total > kPromMaxPoints)
    return Status::InvalidArgument("the answer holds more than " + std::to_string(kPromMaxPoints) +
                                   " points: narrow --selector or --since");
  return Status::OK();
}

}  // namespace

Status ParseMatrixResponse(std::string_view body, long http_status, PromMatrix* out) {
  *out = PromMatrix();
  json doc = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  const bool api_json = doc.is_object() && doc.contains("status") && doc["status"].is_string();
  if (http_status < 200 || http_status >= 300 || (api_json && doc["status"] != "success")) {
    if (api_json && doc.contains("error") && doc["error"].is_string()) {
      std::string type = doc.contains("errorType") && doc["errorType"].is_string() ? doc["errorType"].get<std::string>()
                                                                                   : std::string("error");
      return Status::IOError("answered HTTP " + std::to_string(http_status) + " (" + Excerpt(type, 40) +
                             "): " + Excerpt(doc["error"].get<std::string>(), 400));
    }
    return Status::IOError("answered HTTP " + std::to_string(http_status) +
                           (body.empty() ? std::string(" with an empty body") : ": " + Excerpt(body)));
  }
  if (doc.is_discarded())
    return Status::Corruption("the answer is not JSON (is the URL a Prometheus query API?): " + Excerpt(body));
  if (!api_json) return Status::Corruption("the answer has no \"status\": not the query API: " + Excerpt(body));
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_object()) return Status::Corruption("the answer has no \"data\" object");
  auto type = data->find("resultType");
  if (type == data->end() || !type->is_string() || *type != "matrix")
    return Status::Corruption("the answer's resultType is " +
                              (type == data->end() ? std::string("missing") : Excerpt(type->dump(), 40)) +
                              ", not matrix");
  auto result = data->find("result");
  if (result == data->end() || !result->is_array()) return Status::Corruption("the answer has no result array");
  if (result->size() > kPromMaxSeries)
    return Status::InvalidArgument("the answer holds " + std::to_string(result->size()) + " series, more than " +
                                   std::to_string(kPromMaxSeries) + ": narrow --selector");
  out->series.reserve(result->size());
  size_t points = 0;
  for (size_t i = 0; i < result->size(); ++i) {
    PromSeries s;
    BN_RETURN_IF_ERROR(ParseSeries((*result)[i], i, &points, &s));
    out->series.push_back(std::move(s));
  }
  if (auto w = doc.find("warnings"); w != doc.end() && w->is_array())
    for (const json& x : *w)
      if (x.is_string()) out->warnings.push_back(Excerpt(x.get<std::string>(), 400));
  if (auto p = doc.find("isPartial"); p != doc.end() && p->is_boolean() && p->get<bool>())
    out->warnings.push_back(
        "the store marked its answer partial (isPartial: some of its storage nodes did not answer)");
  return Status::OK();
}

}  // namespace bottleneckd
