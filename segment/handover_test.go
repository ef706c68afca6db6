package segment_test

import (
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/tachyon"
)

// TestRolloverDoesNotWaitForClose checks that a finished segment's writer
// is closed on the Writer's own goroutine: while the first segment's
// file takes no write, the writing goroutine rolls over three times and
// writes on, and once the file takes writes again every sample is in a
// finalized segment.
func TestRolloverDoesNotWaitForClose(t *testing.T) {
	release := make(chan struct{})
	var armed, waited atomic.Bool
	fault := func(op, name string) error {
		if armed.Load() && op == "write" && strings.HasSuffix(name, "-000001"+segment.Ext+segment.PartExt) {
			waited.Store(true)
			<-release
		}
		return nil
	}
	var paths []string
	opts := segment.Options{Dir: t.TempDir(), StartTime: segStart, Period: time.Second, Interval: segStep,
		Closed: func(path string, last bool) { paths = append(paths, path) }}
	segment.InjectFault(&opts, time.Millisecond, fault)
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	h := s.Thread(1, 0)
	stack := []uint32{s.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: 1})}
	const n = 350 // 3.5 s: three rollovers
	done := make(chan error, 1)
	go func() {
		for k := range uint64(n) {
			ts := segStart + k*segStep
			s.Watermark(ts)
			if err := h.Write(ts, 0, stack); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	select {
	case err := <-done:
		close(release)
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		close(release)
		t.Fatal("the writing goroutine waited for the first segment's file")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if !waited.Load() {
		t.Fatal("the first segment's close wrote nothing: the test tested nothing")
	}
	if st := s.Stats(); st.Rollovers != 3 || st.Written != 4 {
		t.Errorf("%d rollovers and %d segments written, want 3 and 4", st.Rollovers, st.Written)
	}
	if got := checkRanges(t, readRanges(t, paths), segStart, segStart+n*segStep, func(ts uint64) bool {
		return (ts-segStart)%1_000_000 == 0
	}); got != n {
		t.Errorf("%d samples in the segments, want %d", got, n)
	}
	if base := filepath.Base(paths[0]); !strings.HasSuffix(base, "-000001"+segment.Ext) {
		t.Errorf("the first segment finalized is %s", base)
	}
}

// TestRolloverWhileFinishingWaits checks the rollovers while the Writer's
// goroutine waits in a Closed call: the writing goroutine then closes the
// writers of the segments that would queue behind it (so that no more
// than two wait with their memory), and once the call returns every
// segment is finalized, in order, with every sample.
func TestRolloverWhileFinishingWaits(t *testing.T) {
	release := make(chan struct{})
	var paths []string
	opts := segment.Options{Dir: t.TempDir(), StartTime: segStart, Period: time.Second, Interval: segStep,
		Closed: func(path string, last bool) {
			if len(paths) == 0 {
				<-release
			}
			paths = append(paths, path)
		}}
	s, err := segment.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := []*segment.Thread{s.Thread(1, 0), s.Thread(2, 0)}
	stacks := [][]uint32{
		{s.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: 1})},
		{s.Frame(tachyon.Frame{File: "g.go", Func: "g", Line: 2}), s.Frame(tachyon.Frame{File: "f.go", Func: "f", Line: 1})},
	}
	const n = 650 // 6.5 s: six rollovers
	for k := range uint64(n) {
		ts := segStart + k*segStep
		s.Watermark(ts)
		for i, h := range hs {
			if err := h.Write(ts, 0, stacks[(int(k)/70+i)%2]); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(release)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if st := s.Stats(); st.Rollovers != 6 || st.Written != 7 {
		t.Errorf("%d rollovers and %d segments written, want 6 and 7", st.Rollovers, st.Written)
	}
	if got := checkRanges(t, readRanges(t, paths), segStart, segStart+n*segStep, func(ts uint64) bool {
		return (ts-segStart)%1_000_000 == 0
	}); got != 2*n {
		t.Errorf("%d samples in the segments, want %d", got, 2*n)
	}
}
