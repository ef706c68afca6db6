package merge_test

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/internal/testing/segtest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// mergeTo merges paths into a new file in dir and returns its path.
func mergeTo(t *testing.T, dir string, paths []string, o merge.Options) (string, merge.Stats, error) {
	t.Helper()
	out := filepath.Join(dir, "merged.bin")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := merge.Merge(f, paths, o)
	return out, st, err
}

// TestMergeSegments splits a profile into three segments at two
// timestamps, one inside the parked goroutine's long REPEAT run, and
// checks that merging them gives the profile's samples back, thread by
// thread, in as few records as the profile itself.
func TestMergeSegments(t *testing.T) {
	for _, c := range []tachyon.Compression{tachyon.CompressionNone, tachyon.CompressionZstd} {
		t.Run(c.String(), func(t *testing.T) {
			dir := t.TempDir()
			orig := filepath.Join(dir, "orig.bin")
			start, end := segtest.Profile(t, orig, c)
			cuts := []uint64{start + (end-start)/3 + 5_000, start + (end-start)*2/3}
			segs := segtest.Split(t, orig, t.TempDir(), cuts, c)
			out, st, err := mergeTo(t, dir, segs, merge.Options{})
			if err != nil {
				t.Fatal(err)
			}
			segtest.Equal(t, out, orig)
			f, err := reader.Open(out)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if f.Header.StartTime != start || f.Header.Compression != c || st.Samples != uint64(f.Header.SampleCount) {
				t.Errorf("header %+v, stats %+v", f.Header, st)
			}
			if got, want := records(t, out), records(t, orig); got > want+3*5 {
				t.Errorf("merged file has %d records, the profile %d: runs were split", got, want)
			}
		})
	}
}

// records counts the records of the file at path.
func records(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	it := f.Samples()
	for it.NextRun() {
	}
	var n uint64
	for _, r := range it.Stats().Records {
		n += r
	}
	return n
}

// TestMergeVectors splits every valid shared vector at a third and two
// thirds of its time and merges it back.
func TestMergeVectors(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	for _, bin := range bins {
		f, err := reader.Open(bin)
		if err != nil {
			continue // the corrupt vectors live in their own directory
		}
		h := f.Header
		f.Close()
		t.Run(filepath.Base(bin), func(t *testing.T) {
			lo, hi := segtest.Span(t, bin)
			cuts := []uint64{lo + (hi-lo)/3, lo + (hi-lo)*2/3 + 1}
			if hi == lo || cuts[0] < h.StartTime {
				cuts = []uint64{h.StartTime, h.StartTime}
			}
			segs := segtest.Split(t, bin, t.TempDir(), cuts, h.Compression)
			out, _, err := mergeTo(t, t.TempDir(), segs, merge.Options{})
			if err != nil {
				t.Fatal(err)
			}
			segtest.Equal(t, out, bin)
		})
	}
}

// TestMergeReference checks the merged file with the reference validator.
func TestMergeReference(t *testing.T) {
	ref := testutil.Shared(t, "tools", "tachyon_ref.py")
	py := testutil.Tool(t, "python3")
	testutil.Tool(t, "zstd")
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.bin")
	start, end := segtest.Profile(t, orig, tachyon.CompressionZstd)
	segs := segtest.Split(t, orig, t.TempDir(), []uint64{start + (end-start)/2}, tachyon.CompressionZstd)
	for _, c := range []merge.Compression{merge.Auto, merge.None} {
		out, _, err := mergeTo(t, t.TempDir(), segs, merge.Options{Compression: c})
		if err != nil {
			t.Fatal(err)
		}
		if b, err := exec.Command(py, ref, "validate", out).CombinedOutput(); err != nil {
			t.Errorf("reference validator rejects the merged file: %v\n%s", err, b)
		}
	}
}

// TestMergeErrors checks the inputs merge refuses, and that each error
// names the file.
func TestMergeErrors(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "orig.bin")
	start, end := segtest.Profile(t, orig, tachyon.CompressionNone)
	segs := segtest.Split(t, orig, t.TempDir(), []uint64{start + (end-start)/2}, tachyon.CompressionNone)
	other := filepath.Join(dir, "other.bin")
	segtest.ProfileInterval(t, other, tachyon.CompressionNone, 20_000)
	// A segment whose header says it holds 2^32-1 samples: the merge
	// refuses it by the headers alone, before reading a sample.
	full := filepath.Join(dir, "full.tachyon")
	b, err := os.ReadFile(segs[1])
	if err != nil {
		t.Fatal(err)
	}
	binary.LittleEndian.PutUint32(b[tachyon.HeaderSamplesAt:], math.MaxUint32)
	if err := os.WriteFile(full, b, 0o644); err != nil {
		t.Fatal(err)
	}
	junk := filepath.Join(dir, "junk.tachyon")
	if err := os.WriteFile(junk, []byte("not a profile"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  error
		names string
	}{
		{"interval", []string{segs[0], other}, merge.ErrInterval, other},
		{"backwards", []string{segs[1], segs[0]}, merge.ErrBackwards, segs[0]},
		{"junk", []string{segs[0], junk}, reader.ErrFormat, junk},
		{"too many samples", []string{segs[0], full}, merge.ErrTooManySamples, full + ": " + merge.ErrTooManySamples.Error() + ": the 1 files before it hold "},
		{"none", nil, merge.ErrNoInputs, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := mergeTo(t, t.TempDir(), tc.paths, merge.Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(fmt.Sprint(err), tc.names) {
				t.Errorf("error %v, want %v naming %s", err, tc.want, tc.names)
			}
		})
	}
}

// TestMergeFileTwice checks that a file named twice, or under another
// name, is refused rather than counted twice: a segment whose threads
// have one sample each (the last segment of a run often does) would
// otherwise pass the check that time does not go back.
func TestMergeFileTwice(t *testing.T) {
	dir := t.TempDir()
	seg := filepath.Join(dir, "seg.tachyon")
	w, err := writer.Create(seg, writer.Options{StartTime: 1_700_000_000_000_000, Interval: 10_000})
	if err != nil {
		t.Fatal(err)
	}
	fr := w.Frame(tachyon.Frame{File: "main.go", Func: "main.worker", Line: 1})
	for g := range uint64(3) {
		if err := w.WriteStack(g+1, 0, 1_700_000_000_000_000, 0, []uint32{fr}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.tachyon")
	if err := os.Link(seg, link); err != nil {
		t.Fatal(err)
	}
	for _, paths := range [][]string{{seg, seg}, {seg, link}} {
		_, st, err := mergeTo(t, t.TempDir(), paths, merge.Options{})
		if err == nil || !strings.Contains(err.Error(), "twice") || !strings.Contains(err.Error(), paths[1]) {
			t.Errorf("merge of %q: %d samples, error %v; want the file refused as named twice", paths, st.Samples, err)
		}
	}
}
