// Package nytprof exports a sampling profile as a Devel::NYTProf 5.0 data
// file, the format that Perl's nytprofhtml, nytprofcalls and
// Devel::NYTProf::Data read.
//
// The layout follows the format as written and read by Devel::NYTProf 6.x:
// a "NYTProf 5 0" header line, text attribute and option records, then
// tagged binary records (PID_START, NEW_FID, TIME_LINE, SUB_RETURN, SRC_LINE,
// SUB_INFO, SUB_CALLERS, PID_END) with variable-length integers and
// little-endian doubles. Optionally everything after the text part is one
// zlib stream (the "z" record).
//
// A sampling profile maps onto it like this (w = one sample's weight, the
// profile's sampling interval):
//
//   - every source file gets a fid, numbered 1..N without gaps;
//   - line time: w goes to the leaf frame's file:line, or to the deepest
//     frame with a usable line (1..65535). A statement is a goroutine's
//     arrival at a stack: its line gets one counted TIME_LINE per arrival,
//     so a goroutine parked at one line for a minute is one statement of a
//     minute, not 6,000 of 10 ms, and the file's size follows the
//     profile's stack changes (at most one per run of a REPEAT record),
//     not its samples. Ticks are split so no record exceeds 2^31-1 (extra
//     records are DISCOUNTed);
//   - every function becomes a sub named "<import path>::<rest of the
//     symbol>", with SUB_INFO first line = declaration line when
//     known, else the smallest sampled line, and last line = the largest;
//   - caller edges (SUB_CALLERS) per call site: count = observed call
//     instances (a new activation starts when a frame appears where the
//     goroutine's previous counted sample did not have it), inclusive time
//     only at the outermost occurrence of a recursive callee (deeper ones add
//     to the recursive time and depth), exclusive time on the leaf's edge;
//     root frames are called from the pseudo sub main::RUNTIME;
//   - the call tree is written as SUB_RETURN records in post-order for the
//     flame graph;
//   - one pid whose duration is the total sampled time.
//
// Label frames (tachyon.LabelOf), the outermost frames of a labelled
// goroutine's samples, are left out: they are no code, NYTProf has no
// label of a sample, and a sub per label value would make every route a
// caller of the program's roots. A labelled file exports what the same
// samples without labels export; per-label views are pprof's, the
// report's, and collapsed's and speedscope's with their Labels option.
//
// WriteSource writes from any Source, reading a Tachyon file (FromFile) run
// by run; a file is validated in that same pass, before the first byte is
// written, so a rejected file never produces output.
package nytprof
