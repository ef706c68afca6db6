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
// mtime and build id); the exporter finds where .text is mapped in a
// running process, so that offsets stay right for position-independent
// executables; a histogram counts sampled PCs as text offsets, and the
// file is written with one chunk per sampled address so that it means
// the same under any slot stride.
//
// AtStop profiles the running executable: its Recorder is an observer of
// the sampler's on-CPU samples (profiler.WithObserver) that counts the
// leaf PC of each, and writes the profile when the profiler closes it at
// Stop.
//
// Write approximates a histogram from a Tachyon file, which stores no
// PCs: each on-CPU leaf (function, file, line; or every sample's, with
// Options.All) is mapped to the first instruction of that line in
// the binary's line table, and writes it as a file. Labels change nothing:
// label frames (tachyon.LabelOf) are outermost, never a leaf, and a sample
// of label frames alone has no leaf, as an empty stack.
package dcpi
