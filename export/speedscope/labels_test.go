package speedscope

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestLabels: without Labels no sample's stack holds a label frame; with
// it, goroutine 1's labelled samples start (at the root) with
// http.method=GET then http.route=/api/cpu, and the weights are the same.
func TestLabels(t *testing.T) {
	type doc struct {
		Shared struct {
			Frames []frame `json:"frames"`
		} `json:"shared"`
		Profiles []struct {
			Name    string    `json:"name"`
			Samples [][]int   `json:"samples"`
			Weights []float64 `json:"weights"`
		} `json:"profiles"`
	}
	export := func(labels bool) doc {
		var b bytes.Buffer
		if err := Write(&b, proftest.Labelled(t), Options{Top: -1, Labels: labels}); err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := json.Unmarshal(b.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	isLabel := func(d doc, i int) bool {
		fr := d.Shared.Frames[i]
		return tachyon.IsLabel(tachyon.Frame{File: fr.File, Func: fr.Name, Line: fr.Line})
	}
	without, with := export(false), export(true)
	if len(without.Profiles) != len(with.Profiles) {
		t.Fatalf("%d profiles without labels, %d with", len(without.Profiles), len(with.Profiles))
	}
	labelled := 0
	for i, p := range without.Profiles {
		q := with.Profiles[i]
		var wsum, qsum float64
		for _, w := range p.Weights {
			wsum += w
		}
		for _, w := range q.Weights {
			qsum += w
		}
		if p.Name != q.Name || wsum != qsum {
			t.Errorf("profile %d: %s weighs %v without labels, %s %v with", i, p.Name, wsum, q.Name, qsum)
		}
		for _, st := range p.Samples {
			for _, fi := range st {
				if isLabel(without, fi) {
					t.Fatalf("%s: a label frame without Labels: %v", p.Name, st)
				}
			}
		}
		if q.Name != "goroutine 1" {
			continue
		}
		for _, st := range q.Samples {
			if len(st) > 2 && isLabel(with, st[0]) {
				labelled++
				if a, b := with.Shared.Frames[st[0]].Name, with.Shared.Frames[st[1]].Name; a != "http.method=GET" || b != "http.route=/api/cpu" {
					t.Errorf("goroutine 1's root frames %s, %s", a, b)
				}
			}
		}
	}
	if labelled == 0 {
		t.Error("no labelled sample of goroutine 1 with Labels")
	}
}
