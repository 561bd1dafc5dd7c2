#include "base/config_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "base/parse_util.h"
#include "base/unique_fd.h"

namespace bottleneckd {
namespace {

// The source text of a scalar from its mark: anchors ("&a ") and tags
// ("!!str ") before it skipped. yaml-cpp's Mark::pos is a byte offset that
// does not count a UTF-8 byte-order mark.
std::string_view ScalarLine(std::string_view source, const YAML::Mark& m) {
  size_t pos = static_cast<size_t>(m.pos);
  if (source.substr(0, 3) == "\xEF\xBB\xBF") pos += 3;
  if (m.is_null() || pos >= source.size()) return {};
  std::string_view line = source.substr(pos);
  line = line.substr(0, line.find('\n'));
  while (!line.empty() && (line.front() == '&' || line.front() == '!')) {
    size_t sp = line.find_first_of(" \t");
    if (sp == std::string_view::npos) return {};
    line.remove_prefix(sp);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
  }
  return line;
}

// Whether a quoted scalar starting at line[0] closes on this line.
bool QuoteCloses(std::string_view line) {
  const char q = line.front();
  for (size_t i = 1; i < line.size(); ++i) {
    if (q == '"' && line[i] == '\\') {
      ++i;
    } else if (line[i] == q) {
      if (q == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
        ++i;  // '' is a quote inside single quotes
        continue;
      }
      return true;
    }
  }
  return false;
}

// Where the first tab in a line's leading whitespace is (0-based line and
// column, as yaml-cpp's marks), if any.
std::optional<YAML::Mark> IndentationTab(std::string_view yaml) {
  int line = 0;
  for (size_t at = 0; at < yaml.size(); ++line) {
    size_t end = yaml.find('\n', at);
    if (end == std::string_view::npos) end = yaml.size();
    for (size_t i = at; i < end && (yaml[i] == ' ' || yaml[i] == '\t'); ++i) {
      if (yaml[i] != '\t') continue;
      YAML::Mark m;
      m.pos = static_cast<int>(i);
      m.line = line;
      m.column = static_cast<int>(i - at);
      return m;
    }
    at = end + 1;
  }
  return std::nullopt;
}

}  // namespace

Status LoadYaml(std::string_view yaml, std::string_view filename, YAML::Node* root) {
  try {
    *root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    if (std::optional<YAML::Mark> tab = IndentationTab(yaml); tab && tab->line <= e.mark.line)
      return At(filename, *tab, "a tab in the indentation: YAML indents with spaces only");
    return At(filename, e.mark, e.msg);
  }
  return Status::OK();
}

Status ConfigTooLarge(std::string_view file, std::string_view what, uint64_t bytes, size_t max_bytes) {
  return Status::InvalidArgument(std::string(file) + ": the " + std::string(what) + " is " + std::to_string(bytes) +
                                 " bytes, over the limit of " + std::to_string(max_bytes) + " bytes");
}

Status ReadConfigText(const std::string& path, std::string_view what, size_t max_bytes, std::string* out) {
  const std::string named = std::string(what) + " file " + path;
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, named);
  struct stat st;
  if (::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && static_cast<uint64_t>(st.st_size) > max_bytes)
    return ConfigTooLarge(path, what, static_cast<uint64_t>(st.st_size), max_bytes);
  // Not sized by stat alone (a pipe, a file growing): at most one chunk over.
  std::string text;
  char buf[65536];
  while (text.size() <= max_bytes) {
    ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::FromErrno(errno, named);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  if (text.size() > max_bytes) return ConfigTooLarge(path, what, text.size(), max_bytes);
  *out = std::move(text);
  return Status::OK();
}

Status ConfigReader::Duration(const YAML::Node& n, std::string_view key, const DurationSpec& spec, double* out) const {
  if (!n.IsMap() || !n[std::string(key)]) return Status::OK();
  const YAML::Node v = n[std::string(key)];
  const std::string text = v.IsScalar() ? v.Scalar() : "";
  if (spec.off && (text == "0" || text == "off" || text == "false")) {
    *out = 0;
    return Status::OK();
  }
  double d = 0;
  if (!v.IsScalar() || !ParseDuration(text, &d) || d < spec.lo || d > spec.hi)
    return At(file_, v.Mark(),
              spec.name + " must be a duration from " + DurationText(spec.lo) + " to " + DurationText(spec.hi) +
                  ", like " + std::string(spec.like) + (spec.off ? ", or off" : "") + ", got '" +
                  (v.IsScalar() ? text : std::string("a non-scalar")) + "'");
  *out = d;
  return Status::OK();
}

Status ConfigReader::OneLine(const YAML::Node& v, std::string_view key) const {
  const std::string& s = v.Scalar();
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b == '\n') return At(file_, v.Mark(), std::string(key) + " must fit on one line (an unclosed quote?)");
    if (b < 0x20 || b == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "0x%02x", b);
      return At(file_, v.Mark(), std::string(key) + " holds a control character (" + hex + ")");
    }
  }
  std::string_view line = ScalarLine(source_, v.Mark());
  if (line.empty()) return Status::OK();
  bool ends_here = true;
  if (line.front() == '"' || line.front() == '\'') {
    ends_here = QuoteCloses(line);
  } else if (line.front() == '|' || line.front() == '>') {
    ends_here = false;  // a block scalar
  } else {
    ends_here = line.substr(0, s.size()) == s;  // a plain scalar folded over lines is longer
  }
  if (!ends_here)
    return At(file_, v.Mark(),
              std::string(key) + " must fit on one line, but its value runs on to the next (an unclosed quote?)");
  return Status::OK();
}

Status ConfigReader::ListSize(const YAML::Node& v, std::string_view key) const {
  if (v.IsSequence() && v.size() > kMaxConfigListEntries)
    return At(file_, v.Mark(),
              std::string(key) + " has " + std::to_string(v.size()) + " entries, over the limit of " +
                  std::to_string(kMaxConfigListEntries));
  return Status::OK();
}

Status ConfigReader::UniqueKeys(const YAML::Node& root) const {
  // Iterative, so nesting depth costs no stack; every node is visited once
  // (an alias shares its anchor's mark), so aliases cannot multiply the work.
  std::set<std::pair<int, YAML::NodeType::value>> seen;
  std::vector<YAML::Node> todo{root};
  while (!todo.empty()) {
    YAML::Node n = todo.back();
    todo.pop_back();
    if (!n.IsMap() && !n.IsSequence()) continue;
    if (!seen.insert({n.Mark().pos, n.Type()}).second) continue;
    if (n.IsSequence()) {
      for (const auto& item : n) todo.push_back(item);
      continue;
    }
    std::unordered_map<std::string, YAML::Mark> keys;
    for (const auto& kv : n) {
      if (kv.first.IsScalar()) {
        auto [it, added] = keys.emplace(kv.first.Scalar(), kv.first.Mark());
        if (!added)
          return At(
              file_, kv.first.Mark(),
              "duplicate key '" + kv.first.Scalar() + "' (first at line " + std::to_string(it->second.line + 1) + ")");
      } else {
        todo.push_back(kv.first);
      }
      todo.push_back(kv.second);
    }
  }
  return Status::OK();
}

}  // namespace bottleneckd
