package gotrace_test

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/gotrace"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestCutAfterSamples: a trace whose next generation fails to read after
// one with CPU samples (a pipe closed with an error mid-generation) ends
// with the error, not a panic.
func TestCutAfterSamples(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for x := 0; ; x++ {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	data := testutil.Trace(t, 300*time.Millisecond)
	data = append(data, 1, 5) // a batch cut in its header
	rd, err := gotrace.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	var ev gotrace.Event
	samples := 0
	for {
		err := rd.Next(&ev)
		if err == io.EOF {
			t.Fatal("EOF, want the cut's error")
		}
		if err != nil {
			t.Logf("%d samples, then %v", samples, err)
			break
		}
		if ev.Kind == gotrace.Sample {
			samples++
		}
	}
	if samples == 0 {
		t.Fatal("no CPU samples before the cut: the test tests nothing")
	}
}
