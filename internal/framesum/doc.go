// Package framesum writes and checks the checksum frames that follow a
// zstd frame written without a content checksum.
//
// A zstd frame's content checksum (RFC 8878 3.1.1) is XXH64 of what the
// frame decompresses to. For a frame of parked goroutines' runs, whose
// content is hundreds of times its size, computing it is most of what
// writing the frame costs. A checksum frame holds XXH64 of the covered
// frame's bytes as written instead: a skippable frame (RFC 8878 3.1.2) of
// magic 0x184D2A5E whose 12 bytes of content are the tag "tysm" and the
// sum, little-endian, right after the frame it covers.
//
// Any zstd decoder skips a checksum frame. A Verifier in the reading path
// checks it as the bytes pass, so that a covered frame damaged on disk
// reads as an error; it also catches damage the content checksum would not
// (a frame whose damaged bytes still decode). Frames not followed by a
// checksum frame (those with a content checksum of their own, or another
// writer's) pass unchecked, as do other skippable frames.
package framesum
