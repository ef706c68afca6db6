package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/export/report"
	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// TestStatesAgree writes every status byte value and checks that the CLI's
// collapsed --state filter, the report, the pprof export and the speedscope
// export classify each goroutine as tachyon.Status.State does (NYTProf's
// on-CPU view is checked the same way in package nytprof).
func TestStatesAgree(t *testing.T) {
	f := proftest.AllStatuses(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "statuses.bin")
	if err := os.WriteFile(in, proftest.AllStatusesBytes(t), 0o644); err != nil {
		t.Fatal(err)
	}
	want := func(v int) tachyon.State { return tachyon.Status(v).State() }

	t.Run("collapsed", func(t *testing.T) {
		for s := range tachyon.State(tachyon.NumStates) {
			code, out, errs := runCLI("collapsed", "--frames", "func", "--state", s.String(), in)
			if code != exitOK {
				t.Fatalf("collapsed --state %v: exit %d: %s", s, code, errs)
			}
			for v := range proftest.NumStatuses {
				if got := strings.Contains(out, ";"+proftest.StatusFunc(v)+" "); got != (want(v) == s) {
					t.Errorf("collapsed --state %v: status %#x included = %v, want state %v", s, v, got, want(v))
				}
			}
		}
	})
	t.Run("report", func(t *testing.T) {
		p, err := report.Aggregate(f, report.Options{Goroutines: proftest.NumStatuses})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Lanes) != proftest.NumStatuses {
			t.Fatalf("%d lanes, want %d", len(p.Lanes), proftest.NumStatuses)
		}
		for _, l := range p.Lanes {
			v := int(l.Goroutine - 1)
			if l.States[want(v)] != l.Samples {
				t.Errorf("report: status %#x: states %v, want all %d samples %v", v, l.States, l.Samples, want(v))
			}
		}
	})
	t.Run("pprof", func(t *testing.T) {
		out := filepath.Join(dir, "p.pb.gz")
		if code, _, errs := runCLI("convert", "--to", "pprof", "--max-goroutines", "1000", in, "-o", out); code != exitOK {
			t.Fatalf("convert: %s", errs)
		}
		r, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		p, err := profile.Parse(r)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[int]bool{}
		for _, s := range p.Sample {
			v, err := strconv.Atoi(s.Label["goroutine"][0])
			if err != nil {
				t.Fatal(err)
			}
			v--
			seen[v] = true
			if got := s.Label["state"]; len(got) != 1 || got[0] != want(v).String() {
				t.Errorf("pprof: status %#x: state label %v, want %v", v, got, want(v))
			}
		}
		if len(seen) != proftest.NumStatuses {
			t.Errorf("pprof: %d goroutines, want %d", len(seen), proftest.NumStatuses)
		}
	})
	t.Run("speedscope", func(t *testing.T) {
		// Goroutines come busiest on CPU first, then by id: the on-CPU
		// goroutines, in id order, then the others.
		out := filepath.Join(dir, "s.json")
		if code, _, errs := runCLI("convert", "--to", "speedscope", "--top", "-1", in, "-o", out); code != exitOK {
			t.Fatalf("convert: %s", errs)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Profiles []struct{ Name string }
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var onCPU, runnable, off []string
		for v := range proftest.NumStatuses {
			name := "goroutine " + strconv.Itoa(v+1)
			switch {
			case want(v).OnCPU():
				onCPU = append(onCPU, name)
			case want(v) == tachyon.Runnable:
				runnable = append(runnable, name)
			default:
				off = append(off, name)
			}
		}
		var got []string
		for _, p := range doc.Profiles {
			got = append(got, p.Name)
		}
		if wantOrder := append(append(onCPU, runnable...), off...); !slices.Equal(got, wantOrder) {
			t.Errorf("speedscope profiles:\n%v\nwant on-CPU goroutines first, then runnable ones:\n%v", got, wantOrder)
		}
	})
}
