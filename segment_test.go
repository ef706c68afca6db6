package profiler

import (
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gotachyon/profiler/reader"
)

// TestSegmentedProfile profiles with 200 ms segments for about a second:
// every segment verifies, the hook sees each one in name order and last
// only on the one Stop closed, and the samples add up to Stats'.
func TestSegmentedProfile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "segs")
	p := Start(WithPath(dir), WithSegment(200*time.Millisecond), WithQuiet(true))
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	var mu sync.Mutex
	var paths []string
	var lasts []bool
	p.OnSegment(func(path string, last bool) {
		mu.Lock()
		defer mu.Unlock()
		paths, lasts = append(paths, path), append(lasts, last)
	})
	time.Sleep(1200 * time.Millisecond)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if p.Path() != dir {
		t.Errorf("Path %q, want %q", p.Path(), dir)
	}
	if len(paths) < 2 || !lasts[len(lasts)-1] || slices.Contains(lasts[:len(lasts)-1], true) || !slices.IsSorted(paths) {
		t.Fatalf("hook saw %v %v", paths, lasts)
	}
	var samples uint64
	for _, path := range paths {
		samples += verifyFile(t, path)
	}
	st, seg := p.Stats(), p.SegmentStats()
	if samples != st.Samples || seg.Written != len(paths) {
		t.Errorf("segments hold %d samples, Stats %d; %d segments, hook saw %d", samples, st.Samples, seg.Written, len(paths))
	}
	t.Logf("%d segments, %d bytes, %d samples, longest rollover pause %v, late %d, at most %d open", seg.Written, seg.Bytes, samples, seg.MaxPause, seg.Late, seg.PeakOpen)
}

// verifyFile checks a whole file and returns its sample count.
func verifyFile(t *testing.T, path string) uint64 {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Verify(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return uint64(f.Header.SampleCount)
}

// TestOnSegmentSingleFile checks that without segments the hook is called
// once, at Stop, with the file.
func TestOnSegmentSingleFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	p := Start(WithPath(path), WithQuiet(true))
	var got []string
	p.OnSegment(func(path string, last bool) {
		if !last {
			t.Error("last is false")
		}
		got = append(got, path)
	})
	time.Sleep(50 * time.Millisecond)
	if err := p.Stop(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{path}) {
		t.Errorf("hook saw %v", got)
	}
}

// TestSegmentBadOptions checks the combinations WithSegment refuses.
func TestSegmentBadOptions(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for name, opts := range map[string][]Option{
		"short":  {WithSegment(time.Millisecond)},
		"output": {WithSegment(time.Second), WithOutput(f)},
		"keep":   {WithKeep(-1, 0)},
		"file":   {WithSegment(time.Second), WithPath(f.Name())},
	} {
		p := Start(append(opts, WithQuiet(true), WithLogger(log.New(io.Discard, "", 0)))...)
		if p.Err() == nil {
			p.Stop()
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestEnvSegments(t *testing.T) {
	t.Setenv(EnvOut, "dir")
	t.Setenv(EnvSegment, "90s")
	t.Setenv(EnvKeep, "5")
	t.Setenv(EnvKeepBytes, "2MiB")
	opts, ok, err := EnvOptions()
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	c := defaultConfig()
	for _, o := range opts {
		if err := o(&c); err != nil {
			t.Fatal(err)
		}
	}
	if c.segment != 90*time.Second || c.keepFiles != 5 || c.keepBytes != 2<<20 {
		t.Errorf("config %+v", c)
	}
	for name, val := range map[string]string{EnvSegment: "60", EnvKeep: "x", EnvKeepBytes: "5Q"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, val)
			if _, _, err := EnvOptions(); err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%s: %v", name, val, err)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "123": 123, "10B": 10, "1k": 1 << 10, "3KB": 3 << 10, "2MiB": 2 << 20, "1G": 1 << 30, "1t": 1 << 40} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "1.5G", "-1", "1P", "9999999999T"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("%q accepted", in)
		}
	}
}
