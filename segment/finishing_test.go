package segment_test

import (
	"bytes"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// TestSegmentsFinishing: segments written after Finishing (called from
// another goroutine, as Stop does) hold the same samples as one file, and
// each holds frames compressed apart (writer.Writer.Finishing) beside its
// stream's.
func TestSegmentsFinishing(t *testing.T) {
	const gens = 12
	want := single(t, gens)
	opts := segment.Options{Dir: t.TempDir(), StartTime: segStart, Period: 3700 * time.Millisecond, Interval: segStep}
	opts.Compression = tachyon.CompressionZstd
	var paths []string
	opts.Closed = func(path string, last bool) { paths = append(paths, path) }
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.Finishing(); close(done) }()
	<-done
	drive(t, segSink(s), gens)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if len(paths) < 3 {
		t.Fatalf("%d segments, want at least 3", len(paths))
	}
	got := map[uint64][]sample{}
	for _, p := range paths {
		readThreads(t, p, got)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(b, []byte{0x28, 0xb5, 0x2f, 0xfd}); n < 2 {
			t.Errorf("%s: %d zstd frames, want the stream's and the finishing ones", p, n)
		}
	}
	for id, ws := range want {
		if !slices.Equal(got[id], ws) {
			t.Fatalf("thread %d: %d samples differ from the single file's %d", id, len(got[id]), len(ws))
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d threads, want %d", len(got), len(want))
	}
}
