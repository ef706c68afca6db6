package spx

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
)

// TestLabelsLeftOut converts a labelled file in both layouts: the SPX
// UI's aggregation (parseUI) of every report is that of the same samples
// without labels, and no function is a label.
func TestLabelsLeftOut(t *testing.T) {
	spans := make([]proftest.Span, len(proftest.LabelledSpans))
	for i, sp := range proftest.LabelledSpans {
		sp.Labels = nil
		spans[i] = sp
	}
	plain, err := reader.NewFileBytes(proftest.LabelledBytes(t, spans))
	if err != nil {
		t.Fatal(err)
	}
	labelled := proftest.Labelled(t)
	for _, layout := range []Layout{PerGoroutine, Sequential} {
		read := func(f *reader.File) []*uiReport {
			dir := t.TempDir()
			ws, err := WriteDir(dir, f, Options{Layout: layout, Host: "h", PID: 1})
			if err != nil {
				t.Fatal(err)
			}
			var reps []*uiReport
			for _, w := range ws {
				rep, err := parseUI(dir, w.Key)
				if err != nil {
					t.Fatalf("%v: %s: %v", layout, w.Key, err)
				}
				reps = append(reps, rep)
			}
			return reps
		}
		got, want := read(labelled), read(plain)
		if len(got) != len(want) || len(got) == 0 {
			t.Fatalf("%v: %d reports, %d without labels", layout, len(got), len(want))
		}
		for i := range got {
			if !reflect.DeepEqual(got[i].byName(), want[i].byName()) || got[i].MaxWT != want[i].MaxWT || got[i].Events != want[i].Events {
				t.Errorf("%v: report %d differs from the same samples' without labels", layout, i)
			}
			for _, n := range got[i].Names {
				if strings.Contains(n, "=") {
					t.Errorf("%v: function %q", layout, n)
				}
			}
		}
	}
}
