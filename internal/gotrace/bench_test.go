package gotrace_test

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"

	xtrace "golang.org/x/exp/trace"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// benchTrace is the trace the benchmarks read: $GOTRACE_BENCH if set (a
// service's trace, say), else 300 ms of record's busy program.
func benchTrace(b *testing.B) []byte {
	if p := os.Getenv("GOTRACE_BENCH"); p != "" {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		return data
	}
	return record(b, 300*time.Millisecond)
}

// BenchmarkRead reads a trace to its end with gotrace and with
// golang.org/x/exp/trace, side by side.
func BenchmarkRead(b *testing.B) {
	data := benchTrace(b)
	b.Run("gotrace", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		var ev gotrace.Event
		for range b.N {
			rd, err := gotrace.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			for {
				if err := rd.Next(&ev); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
			rd.Close()
		}
	})
	b.Run("x-exp-trace", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for range b.N {
			rd, err := xtrace.NewReader(bytes.NewReader(data))
			if err != nil {
				b.Fatal(err)
			}
			for {
				if _, err := rd.ReadEvent(); err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
