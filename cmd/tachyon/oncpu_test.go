package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
)

// TestOnCPUAgrees checks, on a profile of every class of state
// (proftest.Classes), that info's top on CPU, the report's default view and
// go tool pprof -top of the pprof export name the same top function, the
// hot one; that none counts a goroutine in a system call (os/signal's
// loop, an old-encoded read) or one runnable under [no CPU sample] as on
// CPU; and that info and the report list the runtime's system goroutines
// as one group after the program's, out of the default rankings, with
// --runtime showing them in full.
func TestOnCPUAgrees(t *testing.T) {
	in := proftest.Classes(t)
	offCPU := []string{proftest.ClassesSignal, proftest.ClassesRead, proftest.ClassesSpin, "os/signal.loop", "syscall.read"}

	t.Run("info", func(t *testing.T) {
		top, groups := infoSections(t, in)
		if len(top.on) == 0 || top.on[0] != proftest.ClassesHot {
			t.Errorf("info: top on CPU %v, want %s first", top.on, proftest.ClassesHot)
		}
		for _, fn := range append(offCPU, proftest.ClassesGC) {
			if slices.Contains(top.on, fn) {
				t.Errorf("info: %s on CPU: %v", fn, top.on)
			}
		}
		for _, fn := range []string{proftest.ClassesSweep, proftest.ClassesGC, "runtime.gcBgMarkWorker"} {
			if slices.Contains(top.off, fn) {
				t.Errorf("info: runtime function %s in top off CPU: %v", fn, top.off)
			}
		}
		if !slices.Contains(top.off, proftest.ClassesSignal) || !slices.Contains(top.off, proftest.ClassesSpin) {
			t.Errorf("info: top off CPU %v lacks the syscall or the runnable goroutine", top.off)
		}
		if n := len(groups); n == 0 || !strings.Contains(groups[n-1], " runtime (") || !strings.HasPrefix(strings.TrimSpace(groups[n-1]), "3 ") {
			t.Errorf("info: groups %q, want the 3 runtime goroutines as one group, last", groups)
		}

		top, groups = infoSections(t, "--runtime", in)
		if want := []string{proftest.ClassesHot, proftest.ClassesGC, proftest.ClassesWarm}; len(top.on) < 3 || !slices.Equal(top.on[:3], want) {
			t.Errorf("info --runtime: top on CPU %v, want %v first", top.on, want)
		}
		if !slices.Contains(top.off, proftest.ClassesSweep) {
			t.Errorf("info --runtime: top off CPU %v lacks %s", top.off, proftest.ClassesSweep)
		}
		for _, g := range groups {
			if strings.Contains(g, " runtime (") {
				t.Errorf("info --runtime: a runtime group: %q", groups)
			}
		}
	})

	t.Run("report", func(t *testing.T) {
		d := reportPage(t, in)
		if d.Meta.Views[d.Meta.DefaultView] != "on CPU" {
			t.Fatalf("report opens on %q, want on CPU", d.Meta.Views[d.Meta.DefaultView])
		}
		self := d.viewSelf(d.Meta.DefaultView)
		if top := topOf(self); top != proftest.ClassesHot {
			t.Errorf("report: top of the default view %q (%v), want %s", top, self, proftest.ClassesHot)
		}
		for _, fn := range append(offCPU, proftest.ClassesGC, "[runtime]") {
			if self[fn] != 0 {
				t.Errorf("report: %s has %d samples in the default view", fn, self[fn])
			}
		}
		if want := uint64(140); d.Meta.ViewSamples[d.Meta.DefaultView] != want {
			t.Errorf("report: %d samples on CPU, want %d", d.Meta.ViewSamples[d.Meta.DefaultView], want)
		}
		last := d.Groups[len(d.Groups)-1]
		if !last.Runtime || last.Entry != "runtime" || last.N != 3 {
			t.Errorf("report: last group %+v, want the 3 runtime goroutines", last)
		}
		for _, g := range d.Groups[:len(d.Groups)-1] {
			if g.Runtime || strings.HasPrefix(g.Entry, "runtime.") {
				t.Errorf("report: group %+v before the runtime group", g)
			}
		}
		if all := d.viewSelf(len(d.Meta.Views) - 1); all[proftest.ClassesSweep] != 0 || all[proftest.ClassesGC] != 0 {
			t.Errorf("report: runtime functions in the tree: %v", all)
		}

		d = reportPage(t, "--runtime", in)
		self = d.viewSelf(d.Meta.DefaultView)
		if self[proftest.ClassesGC] != 60 || topOf(self) != proftest.ClassesHot {
			t.Errorf("report --runtime: default view %v, want %s first and 60 samples of %s", self, proftest.ClassesHot, proftest.ClassesGC)
		}
		for _, g := range d.Groups {
			if g.Runtime {
				t.Errorf("report --runtime: a runtime group %+v", g)
			}
		}
	})

	t.Run("pprof", func(t *testing.T) {
		if testing.Short() {
			t.Skip("runs go tool pprof")
		}
		// The binary go tool pprof runs, run with a HOME of its own: go
		// tool under that HOME would build pprof again in a new cache.
		tool, err := exec.Command(testutil.Tool(t, "go"), "tool", "-n", "pprof").Output()
		if err != nil {
			t.Fatalf("go tool -n pprof: %v", err)
		}
		out := filepath.Join(t.TempDir(), "p.pb.gz")
		if code, _, errs := runCLI("convert", "--to", "pprof", in, "-o", out); code != exitOK {
			t.Fatalf("convert: %s", errs)
		}
		cmd := exec.Command(strings.TrimSpace(string(tool)), "-top", out)
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+t.TempDir(), "HOME="+t.TempDir())
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		top, err := cmd.Output()
		if err != nil {
			t.Fatalf("go tool pprof -top: %v\n%s", err, stderr.String())
		}
		rows := pprofTop(string(top))
		if !strings.Contains(string(top), "Type: on_cpu") || len(rows) == 0 || rows[0].fn != proftest.ClassesHot {
			t.Errorf("go tool pprof -top: want on_cpu with %s first:\n%s", proftest.ClassesHot, top)
		}
		for _, r := range rows {
			if slices.Contains(offCPU, r.fn) && r.flat != "0" {
				t.Errorf("go tool pprof -top: %s has flat %s on CPU", r.fn, r.flat)
			}
		}
	})
}

// infoTop is info's top functions, on and off CPU.
type infoTop struct{ on, off []string }

// infoSections runs info with args and returns its top functions and its
// goroutine group lines.
func infoSections(t *testing.T, args ...string) (top infoTop, groups []string) {
	t.Helper()
	code, out, errs := runCLI(append([]string{"info"}, args...)...)
	if code != exitOK {
		t.Fatalf("info %v: exit %d: %s", args, code, errs)
	}
	var section *[]string
	for line := range strings.Lines(out) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "goroutines:"):
			section = &groups
		case strings.HasPrefix(line, "top on CPU:"):
			section = &top.on
		case strings.HasPrefix(line, "top off CPU:"):
			section = &top.off
		case strings.HasPrefix(line, "  ") && section != nil:
			if section == &groups {
				groups = append(groups, line)
			} else {
				f := strings.Fields(line) // share, function
				*section = append(*section, f[len(f)-1])
			}
		default:
			section = nil
		}
	}
	return top, groups
}

// page is the part of the report's embedded data these tests read.
type page struct {
	Meta struct {
		Views       []string `json:"views"`
		ViewSamples []uint64 `json:"viewSamples"`
		ViewClasses []uint32 `json:"viewClasses"`
		DefaultView int      `json:"defaultView"`
		Slices      uint64   `json:"slices"`
	} `json:"meta"`
	Strings []string `json:"strings"`
	Frames  []int64  `json:"frames"`
	Tree    []int64  `json:"tree"`
	Cells   []uint64 `json:"cells"`
	Groups  []struct {
		Entry   string `json:"entry"`
		N       int    `json:"n"`
		Runtime bool   `json:"runtime"`
	} `json:"groups"`
}

// reportPage runs report with args and returns the data its page embeds.
func reportPage(t *testing.T, args ...string) *page {
	t.Helper()
	code, out, errs := runCLI(append([]string{"report", "-o", "-"}, args...)...)
	if code != exitOK {
		t.Fatalf("report %v: exit %d: %s", args, code, errs)
	}
	const open = `<script type="application/json" id="tachyon-data">`
	_, rest, ok := strings.Cut(out, open)
	data, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("report: no embedded data")
	}
	var d page
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Meta.ViewClasses) != len(d.Meta.Views) || d.Meta.DefaultView >= len(d.Meta.Views) {
		t.Fatalf("report: %d views, %d view classes, default %d", len(d.Meta.Views), len(d.Meta.ViewClasses), d.Meta.DefaultView)
	}
	return &d
}

// viewSelf returns the self samples per function name in view v, as the
// page's functions table counts them: each node's cells of the view's
// classes.
func (d *page) viewSelf(v int) map[string]uint64 {
	self := map[string]uint64{}
	mask := d.Meta.ViewClasses[v]
	c := 0
	for i := 0; i < len(d.Tree); i += 3 {
		fr, cells := d.Tree[i], int(d.Tree[i+2])
		for k := c; k < c+cells; k++ {
			key, n := d.Cells[2*k], d.Cells[2*k+1]
			if fr >= 0 && mask>>(key/d.Meta.Slices)&1 != 0 {
				self[d.Strings[d.Frames[4*fr]]] += n
			}
		}
		c += cells
	}
	return self
}

// topOf returns the function with the most samples.
func topOf(m map[string]uint64) string {
	best := ""
	for fn, n := range m {
		if best == "" || n > m[best] || n == m[best] && fn < best {
			best = fn
		}
	}
	return best
}

// pprofRow is a row of go tool pprof -top.
type pprofRow struct{ flat, fn string }

// pprofTop returns the rows of go tool pprof -top's output.
func pprofTop(out string) []pprofRow {
	var rows []pprofRow
	in := false
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "flat":
			in = true
		case in && len(f) >= 6:
			rows = append(rows, pprofRow{flat: f[0], fn: strings.Join(f[5:], " ")})
		}
	}
	return rows
}
