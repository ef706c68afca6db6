package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/tachyon"
)

// labelledFiles writes Labelled's file and the same samples without
// labels, and returns their paths.
func labelledFiles(t *testing.T) (labelled, plain string) {
	t.Helper()
	spans := make([]proftest.Span, len(proftest.LabelledSpans))
	for i, sp := range proftest.LabelledSpans {
		sp.Labels = nil
		spans[i] = sp
	}
	dir := t.TempDir()
	labelled, plain = filepath.Join(dir, "labelled.bin"), filepath.Join(dir, "plain.bin")
	if err := os.WriteFile(labelled, proftest.LabelledBytes(t, proftest.LabelledSpans), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, proftest.LabelledBytes(t, spans), 0o644); err != nil {
		t.Fatal(err)
	}
	return labelled, plain
}

// TestInfoLabels: info of a labelled file tallies states, goroutine
// groups and top functions as for the same samples without labels, then
// lists each label's seconds by state, as the samples written give them.
func TestInfoLabels(t *testing.T) {
	labelled, plain := labelledFiles(t)
	for _, flags := range [][]string{nil, {"--runtime"}} {
		_, got, errs := runCLI(append(append([]string{"info"}, flags...), labelled)...)
		_, want, _ := runCLI(append(append([]string{"info"}, flags...), plain)...)
		tail := func(s string) string { return s[strings.Index(s, "\nmode:"):] }
		before, section, ok := strings.Cut(tail(got), "\nlabels:")
		if !ok || before+"\n" != tail(want) {
			t.Fatalf("info %v: the tally of a labelled file\n%s\nwant, as without labels:\n%s%s", flags, got, tail(want), errs)
		}
		if !strings.HasPrefix(section, "        5 values of 4 keys, seconds by state") {
			t.Errorf("info %v: labels section\n%s", flags, section)
		}
		sec := func(n uint64) string { return fmt.Sprintf("%.3f", float64(n)*proftest.LabelledInterval/1e6) }
		for l, c := range proftest.LabelTotals(proftest.LabelledSpans) {
			row := fmt.Sprintf("  %10s %10s %10s %10s  %s\n", sec(c[tachyon.Running]), sec(c[tachyon.Runnable]), sec(c[tachyon.Syscall]), sec(c[tachyon.Blocked]), l)
			if !strings.Contains(section, row) {
				t.Errorf("info %v: no row %q in\n%s", flags, row, section)
			}
		}
	}
	_, out, _ := runCLI("info", plain)
	if strings.Contains(out, "labels:") {
		t.Errorf("info of a file without labels has a labels section:\n%s", out)
	}
}

// TestDumpVerifyLabels: dump shows label frames as the frames they are,
// and verify accepts them.
func TestDumpVerifyLabels(t *testing.T) {
	labelled, _ := labelledFiles(t)
	if code, out, errs := runCLI("verify", labelled); code != exitOK || !strings.HasSuffix(out, ": ok\n") {
		t.Fatalf("verify: exit %d: %s%s", code, out, errs)
	}
	code, out, errs := runCLI("dump", labelled)
	if code != exitOK {
		t.Fatalf("dump: exit %d: %s", code, errs)
	}
	want := `["` + tachyon.LabelFile + `","http.route=/api/cpu",0]`
	if !strings.Contains(out, ","+want+",") {
		t.Errorf("dump lacks the frame %s:\n%.600s", want, out)
	}
}

// TestLabelsFlag: collapsed and convert --to speedscope leave label
// frames out unless --labels keeps them at the root.
func TestLabelsFlag(t *testing.T) {
	labelled, _ := labelledFiles(t)
	root := "http.method=GET;http.route=/api/cpu;net/http.(*conn).serve;main.cpuHandler;main.hash 30\n"
	for _, labels := range []bool{false, true} {
		args := []string{"collapsed", "--frames", "func"}
		if labels {
			args = append(args, "--labels")
		}
		code, out, errs := runCLI(append(args, labelled)...)
		if code != exitOK || strings.Contains(out, root) != labels || strings.Contains(out, "=") != labels {
			t.Errorf("%v: exit %d:\n%s%s", args, code, out, errs)
		}
		args = []string{"convert", "--to", "speedscope", "-o", filepath.Join(t.TempDir(), "s.json")}
		if labels {
			args = append(args, "--labels")
		}
		if code, _, errs := runCLI(append(args, labelled)...); code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		b, _ := os.ReadFile(args[4])
		var doc struct {
			Shared   struct{ Frames []struct{ Name string } }
			Profiles []struct{ Samples [][]int }
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		roots := 0
		for _, p := range doc.Profiles {
			for _, st := range p.Samples {
				if len(st) > 0 && strings.Contains(doc.Shared.Frames[st[0]].Name, "=") {
					roots++
				}
			}
		}
		if (roots > 0) != labels {
			t.Errorf("%v: %d samples under a label frame", args, roots)
		}
	}
}
