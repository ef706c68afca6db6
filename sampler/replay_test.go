package sampler

import (
	"io"
	"testing"

	"github.com/gotachyon/profiler/internal/gotrace"
)

// replay reads src to its end, passing every event to handle; before a
// generation's Sync is handled, atSync has its ordinal (1 for the
// first). It returns the generations read.
func replay(tb testing.TB, src source, atSync func(gen int), handle func(*gotrace.Event)) int {
	tb.Helper()
	gen := 0
	for {
		ev, err := src.NextEvent()
		if err == io.EOF {
			return gen
		}
		if err != nil {
			tb.Fatal(err)
		}
		if ev.Kind == gotrace.Sync {
			gen++
			atSync(gen)
		}
		handle(ev)
	}
}
