package upload_test

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// totals are a profile's sample counts and wall nanoseconds per label set
// (state, wait reason and the program's labels), the figures a store must
// receive.
type totals map[labels]value

// labels are a sample's state, wait reason, and other labels as set
// (labelSet).
type labels struct{ state, reason, set string }

// labelSet returns kv's labels but those named in skip in one string:
// "k=v" sorted, space-separated.
func labelSet(kv map[string]string, skip ...string) string {
	var out []string
	for k, v := range kv {
		if !slices.Contains(skip, k) {
			out = append(out, k+"="+v)
		}
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

type value struct{ samples, wall, onCPU int64 }

// add adds v to the totals of ls.
func (t totals) add(ls labels, v value) {
	old := t[ls]
	t[ls] = value{old.samples + v.samples, old.wall + v.wall, old.onCPU + v.onCPU}
}

// fileTotals reads the Tachyon file at path: its samples per state, wait
// reason (the synthetic innermost frame such as "[chan receive]") and
// labels (the label frames).
func fileTotals(t *testing.T, path string) totals {
	return fileTotalsNamed(t, path, func(k string) string { return k })
}

// fileTotalsNamed is fileTotals with the label names as name gives them.
func fileTotalsNamed(t *testing.T, path string, name func(string) string) totals {
	t.Helper()
	f, err := reader.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	interval := int64(f.Header.Interval) * 1000
	tot := totals{}
	it := f.Samples()
	defer it.Close()
	for it.NextRun() {
		s, n := it.Sample(), int64(it.Run().Count)
		ls := labels{state: s.Status.State().String()}
		if len(s.Stack) > 0 {
			ls.reason, _ = tachyon.WaitReason(f.Frame(s.Stack[0]))
		}
		code := tachyon.SplitLabels(len(s.Stack), func(i int) bool { return tachyon.IsLabel(f.Frame(s.Stack[i])) })
		set := map[string]string{}
		for _, fi := range s.Stack[code:] {
			l, _ := tachyon.LabelOf(f.Frame(fi))
			set[name(l.Key)] = l.Value
		}
		ls.set = labelSet(set)
		v := value{samples: n, wall: n * interval}
		if s.Status.State() == tachyon.Running {
			v.onCPU = n * interval
		}
		tot.add(ls, v)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return tot
}

// segments returns n segment files in dir: the bundled demo wall profile
// first, then generated wall profiles of every state.
func segments(t *testing.T, dir string, n int) []string {
	t.Helper()
	paths := []string{copyDemo(t, dir)}
	for i := 1; i < n; i++ {
		paths = append(paths, writeSegment(t, filepath.Join(dir, fmt.Sprintf("seg-%03d.bin", i)), i))
	}
	return paths[:n]
}

// copyDemo copies testdata/demo/wall.bin into dir.
func copyDemo(t *testing.T, dir string) string {
	t.Helper()
	in, err := os.Open("../testdata/demo/wall.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	path := filepath.Join(dir, "seg-000.bin")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeSegment writes a wall profile of 60 goroutines over 300 ticks from
// seed: parked ones on a channel or in a select, running ones moving
// between two functions, runnable and syscall ones.
func writeSegment(t *testing.T, path string, seed int) string {
	t.Helper()
	const start, interval = 1_700_000_000_000_000, 10_000
	w, err := writer.Create(path, writer.Options{StartTime: start + uint64(seed)*3_000_000, Interval: interval,
		Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 300 {
		for g := range 60 {
			s := goroutineSample(seed, g, tick)
			s.Timestamp = start + uint64(seed)*3_000_000 + uint64(tick)*interval
			if err := w.WriteSample(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// goroutineSample returns goroutine g's sample at tick.
func goroutineSample(seed, g, tick int) writer.Sample {
	fr := func(fn string, line int32) tachyon.Frame {
		return tachyon.Frame{File: "/src/app/" + fn + ".go", Func: "main." + fn, Line: line}
	}
	reason := func(r string) tachyon.Frame { return tachyon.Frame{Func: "[" + r + "]"} }
	s := writer.Sample{ThreadID: uint64(1000*seed + g + 1)}
	switch k := (g + seed) % 6; {
	case k == 0:
		s.Frames = []tachyon.Frame{reason("chan receive"), fr("wait", 12), fr("worker", 30)}
	case k == 1:
		s.Frames = []tachyon.Frame{reason("select"), fr("loop", 40), fr("worker", 31)}
	case k == 2 && (tick/7+g)%2 == 0:
		s.Status = tachyon.StatusOnCPU | tachyon.StatusHasGIL
		s.Frames = []tachyon.Frame{fr("hotA", 50+int32(tick%3)), fr("serve", 60)}
	case k == 2:
		s.Status = tachyon.StatusOnCPU | tachyon.StatusHasGIL
		s.Frames = []tachyon.Frame{fr("hotB", 70), fr("serve", 60)}
	case k == 3:
		s.Status = tachyon.StatusGILRequested
		s.Frames = []tachyon.Frame{fr("serve", 61)}
	case k == 4:
		s.Status = tachyon.StatusOnCPU | tachyon.StatusUnknown
		s.Frames = []tachyon.Frame{fr("read", 80), fr("serve", 62)}
	default:
		s.Frames = []tachyon.Frame{reason("sleep"), fr("ticker", 90)}
	}
	return s
}

// writeBigSegment writes a profile of 4,000 goroutines, each in a function
// of its own, so that its payload weighs some hundred kilobytes.
func writeBigSegment(t *testing.T, path string) string {
	t.Helper()
	const start, interval = 1_700_000_000_000_000, 10_000
	w, err := writer.Create(path, writer.Options{StartTime: start, Interval: interval, Compression: tachyon.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	for tick := range 3 {
		for g := range 4000 {
			s := writer.Sample{ThreadID: uint64(g + 1), Timestamp: start + uint64(tick)*interval, Frames: []tachyon.Frame{
				{File: fmt.Sprintf("/src/pkg%d/handler_%x.go", g%97, uint64(g)*2654435761%1_000_003), Func: fmt.Sprintf("pkg%d.(*Handler%x).Serve", g%97, g*40503%65_521), Line: int32(g)},
				{File: "/src/app/main.go", Func: "main.main", Line: 10}}}
			if err := w.WriteSample(&s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
