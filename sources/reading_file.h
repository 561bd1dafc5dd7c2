// The files a source's reading is recorded in (docs/recording-format.md,
// "Source files"): each continuous source's entry (sources/source_entry.h)
// writes its reading of a tick as text and reads it back, so a recording
// replays every source. The soaker's and irqtime's files keep the forms
// they had in recording versions 1 and 2; the sources added in version 3
// (offcpu, profile, pcap) use the line form below, one writer and one reader:
//
//   format<TAB>1
//   KEY<TAB>FIELD<TAB>FIELD...
//
// Fields are separated by one tab and may be empty; '%', tab, CR and LF in a
// field are written %25, %09, %0D and %0A, so any string (a frame name with
// spaces, a thread name with a tab) comes back byte for byte. Numbers are
// decimal; doubles in their shortest form that reads back exactly.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace bottleneckd {

// Seconds as written in time files: "12.000000500" (exact, nine decimals) for
// 12000000500 ns. ParseSecondsNs reads that form exactly and any other
// non-negative decimal ("12.5", "1e-3") to the nearest nanosecond; false on
// junk, a sign, or a value past int64 nanoseconds.
std::string FormatSecondsNs(int64_t ns);
bool ParseSecondsNs(std::string_view s, int64_t* ns);

// "'12 x'" for messages about a file's contents: at most 80 bytes, control
// characters as '?'.
std::string Quoted(std::string_view s);

// The shortest decimal that reads back as v exactly ("0.1", "1e-07").
std::string ShortestDouble(double v);

class ReadingFileWriter {
 public:
  // Starts the text with "format<TAB>N".
  explicit ReadingFileWriter(int format);
  // Starts a line (ending the one before).
  ReadingFileWriter& Line(std::string_view key);
  ReadingFileWriter& U(uint64_t v);
  ReadingFileWriter& I(int64_t v);
  ReadingFileWriter& D(double v);
  ReadingFileWriter& B(bool v) { return U(v ? 1 : 0); }
  ReadingFileWriter& S(std::string_view v);  // escaped
  // The text, its last line ended.
  std::string Take();

 private:
  std::string text_;
};

class ReadingFileReader {
 public:
  // `what` names the file in messages ("offcpu").
  ReadingFileReader(std::string_view text, std::string_view what);
  // Reads the first line, which must be "format<TAB>N" with 1 <= N <= newest.
  Status Format(int newest, int* format);
  // Moves to the next line that is neither blank nor a '#' comment; false at
  // the end.
  bool Next();
  std::string_view key() const { return key_; }
  // Each takes the line's next field; false when there is none or it is not
  // of the form (a number with junk, a sign where none may be, past the
  // type's range; a double that is not finite; a bool other than 0 or 1).
  bool U(uint64_t* v);
  bool I(int64_t* v);
  bool Int(int* v, int lo, int hi);
  bool D(double* v);
  bool B(bool* v);
  bool S(std::string* v);  // unescaped; false on a bad escape
  // Whether the line has no field left.
  bool AtEnd() const { return !more_; }
  // Corruption "WHAT line N: why, got '...'".
  Status Bad(std::string_view why) const;

 private:
  bool Field(std::string_view* f);
  std::string_view text_, line_, key_, rest_;
  std::string what_;
  int n_ = 0;
  bool more_ = false;  // a field (maybe empty) is left in rest_
};

}  // namespace bottleneckd
