package speedscope

import (
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/writer"
)

type sample struct {
	gid    uint64
	ts     uint64
	status uint8
	frames []writer.Frame
}

// writeProfile writes samples (start time 1000 µs, interval 100 µs) to a
// temporary file and opens it.
func writeProfile(t testing.TB, interval uint64, ss []sample) *reader.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.tachyon")
	w, err := writer.Create(path, writer.Options{StartTime: 1000, Interval: interval})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if err := w.WriteSample(&writer.Sample{ThreadID: s.gid, Timestamp: s.ts, Status: s.status, Frames: s.frames}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return open(t, path)
}

func open(t testing.TB, path string) *reader.File {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}
