// bottleneckd(8) against --help: every flag and command --help names is in
// the man page, read from the help text itself (not a list kept here), so a
// flag added to cmd/flags.cc without reaching the page fails. Also troff
// escaping and the page's control lines. The rendered page through man(1)
// and the bash completion: tests/integration/manpage_test.sh.
#include "cmd/manpage.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cmd/flags.h"

namespace bottleneckd::manpage_test {
namespace {

// Every --word in text ("--collector.NAME" included), without a trailing '.'.
std::set<std::string> FlagTokens(const std::string& text) {
  std::set<std::string> out;
  for (size_t p = text.find("--"); p != std::string::npos; p = text.find("--", p + 2)) {
    if (p > 0 && text[p - 1] == '-') continue;
    size_t e = p + 2;
    while (e < text.size() &&
           (std::isalnum(static_cast<unsigned char>(text[e])) || text[e] == '.' || text[e] == '-' || text[e] == '_'))
      ++e;
    std::string t = text.substr(p, e - p);
    while (!t.empty() && (t.back() == '.' || t.back() == '-')) t.pop_back();
    if (t.size() > 2 && std::isalpha(static_cast<unsigned char>(t[2]))) out.insert(t);
    p = e - 2;
  }
  return out;
}

// The first word of each line of --help's section `heading` ("Subcommands:").
std::vector<std::string> SectionWords(const std::string& help, const std::string& heading) {
  std::vector<std::string> words;
  std::istringstream in(help);
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind(heading, 0) == 0) {
      in_section = true;
      continue;
    }
    if (!in_section) continue;
    if (line.empty() || line[0] != ' ') break;
    std::istringstream l(line);
    std::string w;
    if (l >> w) words.push_back(w);
  }
  return words;
}

// The page as plain text, one section: font and dash escapes undone.
std::string Section(const std::string& page, const std::string& name) {
  std::string out;
  std::istringstream in(page);
  std::string line;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.rfind(".SH ", 0) == 0) {
      std::string title = line.substr(4);
      if (title.size() > 1 && title.front() == '"') title = title.substr(1, title.size() - 2);
      in_section = title == name;
      continue;
    }
    if (in_section) out += line + "\n";
  }
  std::string plain;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] != '\\' || i + 1 >= out.size()) {
      plain += out[i];
      continue;
    }
    char c = out[++i];
    if (c == '-') plain += '-';
    if (c == 'e') plain += '\\';
    if (c == 'f') ++i;  // \fB, \fI, \fR
  }
  return plain;
}

std::vector<std::string> Commands() { return SectionWords(Usage(""), "Subcommands:"); }

TEST(ManPage, EveryCommandOfHelpIsInCommands) {
  const std::string commands = Section(RenderManPage(DescribeCli(), "1"), "COMMANDS");
  ASSERT_FALSE(Commands().empty()) << Usage("");
  for (const std::string& c : Commands()) EXPECT_NE(commands.find("\n" + c), std::string::npos) << c;
  for (const char* mode : {"--once", "--config.check", "--report", "--replay", "daemon"})
    EXPECT_NE(commands.find(mode), std::string::npos) << mode;
}

TEST(ManPage, EveryFlagOfEachHelpIsInOptionsOrCollectors) {
  const std::string page = RenderManPage(DescribeCli(), "1");
  const std::string listed = Section(page, "OPTIONS") + Section(page, "COLLECTORS");
  std::vector<std::string> helps = {Usage("")};
  for (const std::string& c : Commands()) helps.push_back(Usage(c));
  size_t flags = 0;
  for (const std::string& help : helps) {
    for (const std::string& flag : FlagTokens(help)) {
      ++flags;
      EXPECT_NE(listed.find(flag), std::string::npos) << flag << " is in --help but not in the man page";
    }
  }
  EXPECT_GT(flags, 20u);
}

TEST(ManPage, EveryCollectorOfHelpHasItsSwitches) {
  const std::string collectors = Section(RenderManPage(DescribeCli(), "1"), "COLLECTORS");
  std::vector<std::string> names = SectionWords(Usage(""), "Collectors (");
  ASSERT_GT(names.size(), 5u);
  for (const std::string& n : names) {
    EXPECT_NE(collectors.find("--collector." + n), std::string::npos) << n;
    EXPECT_NE(collectors.find("--no-collector." + n), std::string::npos) << n;
  }
}

TEST(ManPage, HeaderAndSections) {
  const std::string page = RenderManPage(DescribeCli(), "9.8.7");
  EXPECT_NE(page.find(".TH BOTTLENECKD 8 \"\" \"bottleneckd 9.8.7\""), std::string::npos);
  for (const char* s : {"NAME", "SYNOPSIS", "DESCRIPTION", "COMMANDS", "OPTIONS", "COLLECTORS", "FILES", "SIGNALS",
                        "\"EXIT STATUS\"", "ENVIRONMENT", "\"SEE ALSO\""})
    EXPECT_NE(page.find(std::string("\n.SH ") + s + "\n"), std::string::npos) << s;
  const std::string exit = Section(page, "EXIT STATUS");
  for (const char* code : {"125", "126", "127"}) EXPECT_NE(exit.find(code), std::string::npos) << code;
}

// Only the macros the renderer means start a line: text never does.
TEST(ManPage, ControlLinesAreMacros) {
  const std::set<std::string> macros = {".TH", ".nh", ".SH", ".SS", ".TP", ".PP", ".br", ".B", ".BR", ".I", ".\\\""};
  std::istringstream in(RenderManPage(DescribeCli(), "1"));
  std::string line;
  while (std::getline(in, line)) {
    ASSERT_NE(line.rfind('\'', 0), 0u) << line;
    if (line.empty() || line[0] != '.') continue;
    EXPECT_TRUE(macros.count(line.substr(0, line.find(' ')))) << line;
  }
}

TEST(TroffEscape, Specials) {
  struct Case {
    const char* in;
    const char* want;
  } cases[] = {
      {"plain", "plain"},
      {"--path.procfs", "\\-\\-path.procfs"},
      {"a\\b", "a\\eb"},
      {".starts a request", "\\&.starts a request"},
      {"'also", "\\&'also"},
      {"mid.dle 'quote'", "mid.dle 'quote'"},
      {"one\n.two", "one\n\\&.two"},
      {"nic \xE2\x86\x92 backlog", "nic \\[u2192] backlog"},
      {"bad \xFF", "bad \\[uFFFD]"},
      {"", ""},
  };
  for (const Case& c : cases) EXPECT_EQ(TroffEscape(c.in), c.want) << c.in;
}

}  // namespace
}  // namespace bottleneckd::manpage_test
