package collapsed

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// goProfile writes a small Go-sampler-like profile: goroutine 7 runs
// main.work, goroutine 9 is parked in a channel receive (with the
// sampler's synthetic wait-reason frame), goroutine 11 waits for a P.
func goProfile(t testing.TB) *reader.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "go.tachyon")
	w, err := writer.Create(path, writer.Options{StartTime: 1000, Interval: 100})
	if err != nil {
		t.Fatal(err)
	}
	mainF := tachyon.Frame{File: "/app/main.go", Func: "main.main", Line: 12}
	work := tachyon.Frame{File: "/app/work.go", Func: "main.work", Line: 30}
	work2 := tachyon.Frame{File: "/app/work.go", Func: "main.work", Line: 31}
	recv := tachyon.Frame{File: "/app/q.go", Func: "main.(*Queue).Pop", Line: 5}
	wait := tachyon.Frame{Func: "[chan receive]"}
	add := func(gid, ts uint64, status tachyon.Status, frames ...tachyon.Frame) {
		if err := w.WriteSample(&writer.Sample{ThreadID: gid, Timestamp: ts, Status: status, Frames: frames}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range uint64(4) {
		ts := 1000 + 100*i
		add(7, ts, tachyon.StatusOnCPU|tachyon.StatusHasGIL, work, mainF)
		add(9, ts, 0, wait, recv, mainF)
		add(11, ts, tachyon.StatusGILRequested, work2, mainF)
	}
	add(7, 1400, tachyon.StatusOnCPU|tachyon.StatusUnknown, work2, mainF)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return proftest.Open(t, path)
}

func TestWriteWithOptions(t *testing.T) {
	f := goProfile(t)
	cases := []struct {
		name string
		o    Options
		want string
	}{
		{"default", Options{}, `/app/main.go:main.main:12;/app/work.go:main.work:31 5
/app/main.go:main.main:12;/app/q.go:main.(*Queue).Pop:5;:[chan receive]:0 4
/app/main.go:main.main:12;/app/work.go:main.work:30 4
`},
		{"func merges lines", Options{Frames: Func}, `main.main;main.work 9
main.main;main.(*Queue).Pop;[chan receive] 4
`},
		{"func-line", Options{Frames: FuncLine, States: []tachyon.State{tachyon.Blocked}}, `main.main:12;main.(*Queue).Pop:5;[chan receive] 4
`},
		{"by goroutine", Options{Frames: Func, ByGoroutine: true}, `goroutine 7;main.main;main.work 5
goroutine 11;main.main;main.work 4
goroutine 9;main.main;main.(*Queue).Pop;[chan receive] 4
`},
		{"states", Options{Frames: FuncLine, States: []tachyon.State{tachyon.Runnable, tachyon.Syscall}}, `main.main:12;main.work:31 5
`},
		{"running only", Options{Frames: FuncLine, ByGoroutine: true, States: []tachyon.State{tachyon.Running}}, `goroutine 7;main.main:12;main.work:30 4
`},
		{"no match", Options{States: []tachyon.State{tachyon.Unknown}}, ``},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, f, c.o); err != nil {
				t.Fatal(err)
			}
			if b.String() != c.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), c.want)
			}
		})
	}
}

func TestParseFrameFormat(t *testing.T) {
	if _, err := ParseFrameFormat("lines"); err == nil {
		t.Error("ParseFrameFormat(lines) accepted")
	}
}

func TestAppendFrameSafe(t *testing.T) {
	fr := tachyon.Frame{File: "a;b.go", Func: "f;g\nh\r", Line: 7}
	for ff, want := range map[FrameFormat]string{
		FileFuncLine: "a;b.go:f;g\nh\r:7", // the spec's format: as it is
		FuncLine:     "f:g h :7",
		Func:         "f:g h ",
	} {
		if got := string(appendFrame(nil, fr, ff)); got != want {
			t.Errorf("%v: %q, want %q", ff, got, want)
		}
	}
}

// TestAppendSyntheticFrames writes every synthetic frame of the Go sampler
// without a line in the short formats, not only wait reasons.
func TestAppendSyntheticFrames(t *testing.T) {
	for _, name := range []string{"[chan receive]", tachyon.RuntimeRoot, tachyon.NoCPUSample} {
		fr := tachyon.Frame{Func: name}
		for _, ff := range []FrameFormat{FuncLine, Func} {
			if got := string(appendFrame(nil, fr, ff)); got != name {
				t.Errorf("%v: %q, want %q", ff, got, name)
			}
		}
	}
}
