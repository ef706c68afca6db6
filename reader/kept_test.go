package reader_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/hostile"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// TestKept checks Sample.Kept against each thread's previous stack: its
// outermost Kept frames are the previous sample's, and it is what the
// record's encoding says (all for REPEAT, none for FULL).
func TestKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.bin")
	w, err := writer.Create(path, writer.Options{StartTime: 1, Interval: 1000})
	if err != nil {
		t.Fatal(err)
	}
	fr := make([]uint32, 8)
	for i := range fr {
		fr[i] = w.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: int32(i)})
	}
	x := uint64(1)
	stacks := map[uint64][]uint32{}
	for i := range 20000 {
		x = x*6364136223846793005 + 1442695040888963407
		tid := x>>62 + 1
		s := stacks[tid]
		if len(s) == 0 {
			s = fr[:1]
		}
		switch x >> 59 & 7 {
		case 0, 5: // a new stack
			s = append([]uint32(nil), fr[:1+x>>40%8]...)
		case 1, 2: // pop some
			s = s[min(len(s)-1, int(x>>40%3)):]
		case 3, 4: // push some
			s = append(append([]uint32(nil), fr[x>>40%8:]...), s...)
		}
		stacks[tid] = s
		w.WriteStack(tid, 0, uint64(i+1), 0, s)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkKept(t, f)

	f2, err := reader.NewFileBytes(hostile.DeepCycling(3, 10))
	if err != nil {
		t.Fatal(err)
	}
	checkKept(t, f2)
}

func checkKept(t *testing.T, f *reader.File) {
	t.Helper()
	prev := map[uint64][]uint32{}
	var by [tachyon.NumEncodings]int
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		d, p := len(s.Stack), prev[s.ThreadID]
		by[s.Encoding]++
		switch {
		case s.Kept < 0 || s.Kept > d || s.Kept > len(p):
			t.Fatalf("%+v: Kept %d of %d frames, previous %d", s, s.Kept, d, len(p))
		case !slices.Equal(s.Stack[d-s.Kept:], p[len(p)-s.Kept:]):
			t.Fatalf("%+v: the outermost %d frames are not the previous stack's %v", s, s.Kept, p)
		case s.Encoding == tachyon.Repeat && s.Kept != d, s.Encoding == tachyon.Full && s.Kept != 0:
			t.Fatalf("%+v: Kept %d of a %v record", s, s.Kept, s.Encoding)
		}
		prev[s.ThreadID] = slices.Clone(s.Stack)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, e := range []tachyon.Encoding{tachyon.Full, tachyon.Suffix, tachyon.PopPush, tachyon.Repeat} {
		if by[e] == 0 && f.Header.SampleCount > 100 {
			t.Errorf("no %v record: %v", e, by)
		}
	}
}
