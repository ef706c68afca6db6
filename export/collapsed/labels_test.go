package collapsed

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/tachyon"
)

// TestLabels folds a labelled file: without Labels the label frames are
// left out, and the lines are those of the same samples written without
// labels; with Labels they are at the root, smallest key outermost, above
// the goroutine frame.
func TestLabels(t *testing.T) {
	f := proftest.Labelled(t)
	plain := make([]proftest.Span, len(proftest.LabelledSpans))
	for i, sp := range proftest.LabelledSpans {
		sp.Labels = nil
		plain[i] = sp
	}
	var without bytes.Buffer
	for _, ff := range []FrameFormat{FileFuncLine, FuncLine, Func} {
		for _, byG := range []bool{false, true} {
			var got, want bytes.Buffer
			if err := Write(&got, f, Options{Frames: ff, ByGoroutine: byG}); err != nil {
				t.Fatal(err)
			}
			g := proftest.LabelledBytes(t, plain)
			pf := proftest.Open(t, writeTemp(t, g))
			if err := Write(&want, pf, Options{Frames: ff, ByGoroutine: byG}); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("%s, by goroutine %v: without Labels\n%s\nwant, as the file without labels folds:\n%s", ff, byG, got.String(), want.String())
			}
			if ff == Func && !byG {
				without = got
			}
		}
	}
	lines, err := Lines(f, Options{Frames: Func, Labels: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Line{
		{"http.method=GET;http.route=/api/cpu;net/http.(*conn).serve;main.cpuHandler;main.hash", 30},
		{"http.method=GET;http.route=/api/slow;net/http.(*conn).serve;main.slowHandler;main.callDownstream;[chan receive]", 50},
		{"http.method=GET;http.route=/api/cpu;net/http.(*conn).serve;main.cpuHandler;main.hash;[no CPU sample]", 5},
		{"region=parse;task=import;main.importer;main.parse", 10},
		{"[runtime];runtime.gcBgMarkWorker;[GC worker (idle)]", 20},
		{"net/http.(*conn).serve;internal/poll.(*FD).Read;[IO wait]", 2},
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("with Labels, no line %v in\n%v", want, lines)
		}
	}
	var byG bytes.Buffer
	if err := Write(&byG, f, Options{Frames: Func, Labels: true, ByGoroutine: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(byG.String(), "\nhttp.method=GET;http.route=/api/slow;goroutine 2;net/http.(*conn).serve;") {
		t.Errorf("with Labels and ByGoroutine:\n%s", byG.String())
	}
	if strings.Contains(without.String(), "=") {
		t.Errorf("without Labels, a label frame:\n%s", without.String())
	}
}

// TestLabelsReference: with Labels and the spec format, a labelled file
// folds as the shared reference reader folds it, label frames and all.
func TestLabelsReference(t *testing.T) {
	py, ref := testutil.Tool(t, "python3"), testutil.Shared(t, "tools", "tachyon_ref.py")
	testutil.Tool(t, "zstd")
	path := writeTemp(t, proftest.LabelledBytes(t, proftest.LabelledSpans))
	out, err := exec.Command(py, ref, "collapsed", path).Output()
	if err != nil {
		t.Fatalf("tachyon_ref.py collapsed: %v", err)
	}
	var got bytes.Buffer
	if err := Write(&got, proftest.Open(t, path), Options{Labels: true}); err != nil {
		t.Fatal(err)
	}
	sorted := func(s string) []string {
		l := strings.Split(strings.TrimSpace(s), "\n")
		slices.Sort(l)
		return l
	}
	if g, w := sorted(got.String()), sorted(string(out)); !slices.Equal(g, w) {
		t.Errorf("folded with Labels:\n%s\nthe reference:\n%s", strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
	if !strings.Contains(got.String(), tachyon.LabelFile+":http.method=GET:0;") {
		t.Errorf("no label frame in the spec format:\n%s", got.String())
	}
}

// writeTemp writes b to a file in t's temporary directory.
func writeTemp(t *testing.T, b []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "p.tachyon")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
