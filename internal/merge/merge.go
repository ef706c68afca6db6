package merge

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Compression chooses the output's compression.
type Compression int

// Output compressions.
const (
	// Auto compresses with zstd when any input does.
	Auto Compression = iota
	// None writes the sample records uncompressed.
	None
	// Zstd compresses the sample records with zstd.
	Zstd
)

// ParseCompression parses "auto", "zstd" or "none".
func ParseCompression(s string) (Compression, error) {
	switch s {
	case "auto":
		return Auto, nil
	case "zstd":
		return Zstd, nil
	case "none":
		return None, nil
	}
	return Auto, fmt.Errorf("compression %q: want auto, zstd or none", s)
}

// Options configures Merge. The zero value is the default.
type Options struct {
	Compression Compression
	// SeparateRuns keeps the threads of different runs apart: the inputs
	// named as segments (see Runs) are numbered by run, 0, 1, ... in the
	// order of each run's first input (the others count as run 0), and a
	// thread of run r is written with its interpreter id plus r. Goroutine
	// ids start again in every process, so that without it goroutine 1 of
	// one run and goroutine 1 of the next are fused into one thread, and
	// runs that overlap in time fail with ErrBackwards. For --runs all.
	SeparateRuns bool
}

// Input is what Merge learned of one input from its header.
type Input struct {
	Path   string
	Header tachyon.Header
	Size   int64 // bytes
}

// Stats describes a merged file.
type Stats struct {
	Inputs  []Input
	Samples uint64
	Threads int
	Frames  int
	Strings int
	// CutStacks counts the input stacks deeper than tachyon.MaxWriteDepth,
	// which the output keeps the innermost frames of, as any writer does.
	CutStacks uint64
}

// Errors of Merge, wrapped with the file they concern.
var (
	// ErrNoInputs is returned for an empty list of files.
	ErrNoInputs = errors.New("no input files")
	// ErrInterval is returned when the inputs' sampling intervals differ.
	ErrInterval = errors.New("sampling interval differs from the first input's")
	// ErrBackwards is returned when a thread's timestamp goes back from
	// one input to the next.
	ErrBackwards = errors.New("a thread's timestamp goes back in time")
	// ErrTwice is returned when one file is among the inputs twice
	// (under two names, or a directory and one of its files): its samples
	// would count twice.
	ErrTwice = errors.New("the same file is an input twice")
	// ErrTooManySamples is returned when the inputs together hold more
	// samples than one file can (2^32-1).
	ErrTooManySamples = errors.New("the inputs hold more samples than one Tachyon file can (2^32-1)")
)

// Merge writes to dst one Tachyon file holding every sample of the files
// at paths, in that order (see the package documentation). It reads each
// file's header first, so that a file that is not a finalized Tachyon
// profile, or one with another interval, fails before any sample is
// written. Errors name the file they concern. On error dst holds an
// unfinished file, which the caller should discard.
func Merge(dst io.WriteSeeker, paths []string, opts Options) (Stats, error) {
	st, start, err := scan(paths)
	if err != nil {
		return st, err
	}
	w, err := writer.New(dst, writer.Options{
		StartTime:   start,
		Interval:    st.Inputs[0].Header.Interval,
		Compression: outputCompression(st.Inputs, opts.Compression),
	})
	if err != nil {
		return st, err
	}
	m := newMerger(w)
	runOf := map[string]uint32{}
	if opts.SeparateRuns {
		for r, run := range Runs(paths) {
			for _, p := range run.Files {
				runOf[p] = uint32(r)
			}
		}
	}
	for _, in := range st.Inputs {
		m.runNo = runOf[in.Path]
		if err := m.copyFile(in.Path); err != nil {
			w.Close() // releases the encoder; the output is discarded anyway
			return st, err
		}
	}
	if err := w.Close(); err != nil {
		return st, err
	}
	ws := w.Stats()
	st.Samples, st.Threads, st.Frames, st.Strings = ws.Samples, ws.Threads, ws.Frames, ws.Strings
	st.CutStacks = m.cut
	return st, nil
}

// scan reads the inputs' headers and checks that they can be merged: it
// returns them with the earliest start time.
func scan(paths []string) (Stats, uint64, error) {
	var st Stats
	if len(paths) == 0 {
		return st, 0, ErrNoInputs
	}
	var start, samples uint64
	seen := make([]os.FileInfo, 0, len(paths))
	for i, p := range paths {
		in, err := readInput(p)
		if err != nil {
			return st, 0, err
		}
		if fi, err := os.Stat(p); err == nil {
			for j, o := range seen {
				if o != nil && os.SameFile(fi, o) {
					return st, 0, fmt.Errorf("%s: %w: it is %s, input %d, again (input %d); name each file once", p, ErrTwice, paths[j], j+1, i+1)
				}
			}
			seen = append(seen, fi)
		} else {
			seen = append(seen, nil)
		}
		if len(st.Inputs) > 0 && in.Header.Interval != st.Inputs[0].Header.Interval {
			return st, 0, fmt.Errorf("%s: %w (%d us, not %d us as in %s): merge takes the segments of one run",
				p, ErrInterval, in.Header.Interval, st.Inputs[0].Header.Interval, st.Inputs[0].Path)
		}
		if len(st.Inputs) == 0 || in.Header.StartTime < start {
			start = in.Header.StartTime
		}
		n := uint64(in.Header.SampleCount)
		if samples+n > math.MaxUint32 {
			return st, 0, fmt.Errorf("%s: %w: the %d files before it hold %d; name fewer files at once", p, ErrTooManySamples, len(st.Inputs), samples)
		}
		samples += n
		st.Inputs = append(st.Inputs, in)
	}
	return st, start, nil
}

// readInput opens the file at path for its header and closes it again:
// a directory of a day's segments is not held open at once.
func readInput(path string) (Input, error) {
	f, err := reader.Open(path)
	if err != nil {
		return Input{}, err // names the file
	}
	defer f.Close()
	return Input{Path: path, Header: f.Header, Size: f.Size}, nil
}

// outputCompression resolves c against the inputs' compressions.
func outputCompression(ins []Input, c Compression) tachyon.Compression {
	switch c {
	case Zstd:
		return tachyon.CompressionZstd
	case None:
		return tachyon.CompressionNone
	}
	for _, in := range ins {
		if in.Header.Compression == tachyon.CompressionZstd {
			return tachyon.CompressionZstd
		}
	}
	return tachyon.CompressionNone
}
