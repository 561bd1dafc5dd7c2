// bottleneckd(8) and the bash completion, rendered from the command line's
// description (DescribeCli(), cmd/flags.h): the table that parses the flags
// and writes --help, so the three cannot drift. bottleneckd-gen-docs
// (cmd/gen_docs.cc) writes both at build time; tests/cmd/manpage_test.cc and
// tests/integration/manpage_test.sh compare them with --help.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cmd/flags.h"

namespace bottleneckd {

// Text for a troff line: backslash as \e, every hyphen as \- (option
// dashes must stay ASCII hyphen-minus), a leading '.' or '\'' after \& (it
// would start a request), non-ASCII as \[uXXXX]; ill-formed UTF-8 becomes
// U+FFFD. Newlines are kept; each line it starts is escaped the same way.
std::string TroffEscape(std::string_view text);

// The man page in man(7) macros: NAME, SYNOPSIS, DESCRIPTION, COMMANDS,
// OPTIONS, COLLECTORS, FILES, SIGNALS, EXIT STATUS, ENVIRONMENT, SEE ALSO.
// `version` goes in the .TH footer ("0.1.0").
std::string RenderManPage(const CliDescription& cli, const std::string& version);

// A bash completion script for `bottleneckd`: subcommands, the flags of the
// command being typed, the values of --format and --log.level, files and
// directories for PATH, FILE and DIR values, and after `run ... --` the
// command's own completion (bash-completion's _command_offset when loaded).
std::string RenderBashCompletion(const CliDescription& cli);

// words[0] + sep + words[1] + ...: the two renderers' lists.
std::string JoinWords(const std::vector<std::string>& words, std::string_view sep);

}  // namespace bottleneckd
