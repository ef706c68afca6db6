package nytprof_test

import (
	"bytes"
	"testing"

	"github.com/gotachyon/profiler/export/nytprof"
	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
)

// forgetful is a Source that says nothing of the frames a sample kept
// (Sample.Kept 0), so that every stack is found from its frames whole.
type forgetful struct{ nytprof.Source }

func (s forgetful) Each(fn func(*nytprof.Sample) error) error {
	return s.Source.Each(func(smp *nytprof.Sample) error {
		smp.Kept = 0
		return fn(smp)
	})
}

// TestKeptSameFile: a file whose threads move among deep stacks by every
// encoding converts to the same bytes whether the model finds each deep
// stack from the frames its record kept or from the whole stack, on and
// off CPU.
func TestKeptSameFile(t *testing.T) {
	f, err := reader.NewFileBytes(hostile.DeepWander(3, 5000))
	if err != nil {
		t.Fatal(err)
	}
	for _, onCPU := range []bool{false, true} {
		var got, want bytes.Buffer
		opt := nytprof.Options{OnCPU: onCPU}
		if err := nytprof.WriteSource(&got, nytprof.FromFile(f), opt); err != nil {
			t.Fatal(err)
		}
		if err := nytprof.WriteSource(&want, forgetful{nytprof.FromFile(f)}, opt); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("on CPU %v: %d bytes from the frames kept, %d from whole stacks, not the same", onCPU, got.Len(), want.Len())
		}
	}
}
