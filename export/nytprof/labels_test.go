package nytprof

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// labelledPair returns Labelled's file and the same samples without
// labels.
func labelledPair(t *testing.T) (labelled, plain *reader.File) {
	t.Helper()
	spans := make([]proftest.Span, len(proftest.LabelledSpans))
	for i, sp := range proftest.LabelledSpans {
		sp.Labels = nil
		spans[i] = sp
	}
	f, err := reader.NewFileBytes(proftest.LabelledBytes(t, spans))
	if err != nil {
		t.Fatal(err)
	}
	return proftest.Labelled(t), f
}

// TestLabelsLeftOut: label frames are no subs. A labelled file exports
// the same NYTProf data as its samples without labels, as this package's
// decoder reads it, on and off the CPU.
func TestLabelsLeftOut(t *testing.T) {
	labelled, plain := labelledPair(t)
	for _, o := range []Options{{}, {OnCPU: true}} {
		a, b := export(t, FromFile(labelled), o), export(t, FromFile(plain), o)
		if !bytes.Equal(a, b) {
			t.Errorf("OnCPU %v: a labelled file exports %d bytes unlike the same samples without labels (%d)", o.OnCPU, len(a), len(b))
		}
	}
}

// TestLabelsNYTProfTools loads a labelled file's export with the real
// Devel::NYTProf: its loader sees the numbers of the same samples without
// labels, nytprofhtml renders it without a label sub, and nytprofcalls'
// call paths hold none.
func TestLabelsNYTProfTools(t *testing.T) {
	perl := needNYTProf(t)
	html, calls := testutil.Tool(t, "nytprofhtml"), testutil.Tool(t, "nytprofcalls")
	labelled, plain := labelledPair(t)
	dir := t.TempDir()
	file, plainFile := filepath.Join(dir, "labelled.nytprof"), filepath.Join(dir, "plain.nytprof")
	if err := os.WriteFile(file, export(t, FromFile(labelled), Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plainFile, export(t, FromFile(plain), Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := loadWithPerl(t, perl, file), loadWithPerl(t, perl, plainFile); !reflect.DeepEqual(got, want) || len(got.subs) == 0 {
		t.Errorf("Devel::NYTProf reads the labelled export unlike the plain one: %d subs, want %d", len(got.subs), len(want.subs))
	}
	out := filepath.Join(dir, "html")
	cmd := exec.Command(html, "-f", file, "-o", out)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nytprofhtml: %v\n%s", err, b)
	}
	index, err := os.ReadFile(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(index, []byte("cpuHandler")) || bytes.Contains(index, []byte("http.route")) || bytes.Contains(index, []byte("labels")) {
		t.Errorf("index.html: want cpuHandler and no label sub")
	}
	paths, err := exec.Command(calls, file).CombinedOutput()
	if err != nil {
		t.Fatalf("nytprofcalls: %v\n%s", err, paths)
	}
	if !strings.Contains(string(paths), "main::cpuHandler") || strings.Contains(string(paths), "=") {
		t.Errorf("nytprofcalls:\n%s", paths)
	}
}
