// Package dcpi writes DCPI profiles: the per-image instruction-address
// sample histograms of Digital's Continuous Profiling Infrastructure
// (dcpiformat(4), binary layout of pdb 0.06/0.07): an ASCII header of
// "keyword value" lines ended by "samples", then little-endian uint32
// chunks (offset, number, counts) in increasing offset order and an 8-byte
// footer (addresses with samples, total samples).
//
// A Go program is one image, its executable. OpenImage reads what the
// header needs from the ELF file into an Image (the .text section's
// link-time address, size and file offset, an image id from the file's
// mtime and build id); RuntimeTextStart finds where .text is mapped in a
// running process, so that offsets stay right for position-independent
// executables; Histogram counts sampled PCs, which Offsets turns into text
// offsets; WriteCounts writes the file (WriteFile to a path), one chunk
// per sampled address so that the file means the same under any slot
// stride.
//
// AtStop profiles the running executable: its Recorder is an observer of
// the sampler's on-CPU samples (profiler.WithObserver) that counts the
// leaf PC of each, and writes the profile with WriteSelf when the profiler
// closes it at Stop.
//
// FromTachyon approximates a histogram from a Tachyon file, which stores no
// PCs: each on-CPU leaf (function, file, line; or every sample's, with
// all) is mapped to the first instruction of that line in the binary's
// line table. Write writes that approximation as a file.
package dcpi
