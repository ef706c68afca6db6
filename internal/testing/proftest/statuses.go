package proftest

import (
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// NumStatuses is the number of distinct status bytes, all of which
// AllStatuses writes.
const NumStatuses = 256

// StatusFunc names the one function of the goroutine that AllStatuses gives
// status byte v: "main.status_v" (decimal).
func StatusFunc(v int) string { return fmt.Sprintf("main.status_%d", v) }

// AllStatuses returns a profile with one goroutine per status byte value v
// (0 to 255): goroutine v+1 has two samples, 10 ms apart, with status v,
// stacks main.main > StatusFunc(v). Every reader of the profile must
// classify goroutine v+1 as tachyon.Status(v).State(). AllStatusesBytes
// returns the file's bytes.
func AllStatuses(t testing.TB) *reader.File {
	t.Helper()
	f, err := reader.NewFileBytes(AllStatusesBytes(t))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// AllStatusesBytes returns the bytes of the profile AllStatuses reads.
func AllStatusesBytes(t testing.TB) []byte {
	t.Helper()
	var buf seekbuf.Buffer
	w, err := writer.New(&buf, writer.Options{StartTime: 1_000_000, Interval: 10_000, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	for v := range NumStatuses {
		for k := range 2 {
			s := writer.Sample{ThreadID: uint64(v + 1), Timestamp: uint64(1_000_000 + 10_000*k), Status: tachyon.Status(v),
				Frames: []tachyon.Frame{{File: "status.go", Func: StatusFunc(v), Line: int32(v + 10)}, {File: "main.go", Func: "main.main", Line: 5}}}
			if err := w.WriteSample(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
