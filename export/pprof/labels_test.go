package pprof

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestLabels converts a file with label frames: they leave every
// location list, and each sample carries its program's labels beside
// state and wait_reason, with per-label totals by state exactly those of
// the samples written.
func TestLabels(t *testing.T) {
	p, err := Convert(proftest.Labelled(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][tachyon.NumStates]uint64{}
	for _, s := range p.Sample {
		for _, l := range s.Location {
			if fn := l.Line[0].Function; fn.Filename == tachyon.LabelFile || strings.Contains(fn.Name, "=") {
				t.Fatalf("label frame %q left as a location", fn.Name)
			}
		}
		st, err := tachyon.ParseState(s.Label[LabelState][0])
		if err != nil {
			t.Fatal(err)
		}
		for k, vs := range s.Label {
			if k == LabelState || k == LabelGoroutine || k == LabelWaitReason {
				continue
			}
			for _, v := range vs {
				c := got[k+"="+v]
				c[st] += uint64(s.Value[0])
				got[k+"="+v] = c
			}
		}
		outer := s.Location[len(s.Location)-1].Line[0].Function.Name
		if g := s.Label[LabelGoroutine][0]; (g == "1" || g == "2") && outer != "net/http.(*conn).serve" {
			t.Errorf("goroutine %s: outermost location %s", g, outer)
		}
		if g := s.Label[LabelGoroutine][0]; g == "2" && s.Label[LabelState][0] == "blocked" && s.Label[LabelWaitReason][0] != "chan receive" {
			t.Errorf("goroutine 2 blocked: wait_reason %v", s.Label[LabelWaitReason])
		}
	}
	want := proftest.LabelTotals(proftest.LabelledSpans)
	if len(got) != len(want) {
		t.Errorf("labels %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: samples by state %v, want %v", k, got[k], w)
		}
	}
}

// TestLabelKeyCollision: a program label whose key is one of the
// exporter's keeps its value under ProgramLabelPrefix, and the exporter's
// state keeps its meaning.
func TestLabelKeyCollision(t *testing.T) {
	spans := []proftest.Span{{G: 1, State: tachyon.Running, Stack: []string{"main.f"}, Ticks: 3,
		Labels: []tachyon.Label{{Key: "state", Value: "idle"}, {Key: "label.state", Value: "x"}, {Key: "goroutine", Value: "main"}}}}
	f, err := reader.NewFileBytes(proftest.LabelledBytes(t, spans))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Convert(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 1 {
		t.Fatalf("%d samples", len(p.Sample))
	}
	want := map[string][]string{"state": {"running"}, "goroutine": {"1"}, "label.state": {"x"},
		"label.label.state": {"idle"}, "label.goroutine": {"main"}}
	if got := p.Sample[0].Label; !equalLabels(got, want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
}

func equalLabels(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if strings.Join(v, "\x00") != strings.Join(b[k], "\x00") {
			return false
		}
	}
	return true
}

// TestGoToolPprofProgramLabels reads a converted labelled file with go tool
// pprof: -tags lists the program's labels, and -tagfocus on a label
// restricts -top to exactly that label's time, on CPU and in all.
func TestGoToolPprofProgramLabels(t *testing.T) {
	tool := pprofTool(t)
	var b bytes.Buffer
	if err := Write(&b, proftest.Labelled(t), Options{}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "labelled.pb.gz")
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ms := func(ticks uint64) int64 { return int64(ticks) * proftest.LabelledInterval / 1000 }
	truth := proftest.LabelTotals(proftest.LabelledSpans)
	sum := func(c [tachyon.NumStates]uint64) (n uint64) {
		for _, v := range c {
			n += v
		}
		return n
	}
	base := []string{"-top", "-unit=ms", "-nodefraction=0", "-nodecount=1000"}
	for _, c := range []struct {
		index, focus string
		want         int64
		top          string
	}{
		{"on_cpu", "http.route=/api/cpu", ms(truth["http.route=/api/cpu"][tachyon.Running]), "main.hash"},
		{"on_cpu", "http.route=/api", ms(truth["http.route=/api/cpu"][tachyon.Running] + truth["http.route=/api/slow"][tachyon.Running]), "main.hash"},
		{"wall", "http.route=/api/slow", ms(sum(truth["http.route=/api/slow"])), "main.callDownstream"},
		{"wall", "http.method=GET", ms(sum(truth["http.method=GET"])), "main.callDownstream"},
		{"on_cpu", "task=import", ms(truth["task=import"][tachyon.Running]), "main.parse"},
		{"wall", "region=parse", ms(sum(truth["region=parse"])), "main.parse"},
	} {
		args := append(append([]string{}, base...), "-sample_index="+c.index, "-tagfocus", c.focus, out)
		top := runPprof(t, tool, args...)
		rows, _ := parseTop(t, top, false)
		var total int64 // what the nodes shown account for: the focused samples
		if m := topTotal.FindStringSubmatch(top); m != nil {
			total, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if total != c.want || len(rows) == 0 || rows[0].fn != c.top {
			t.Errorf("-sample_index=%s -tagfocus %s: total %dms, want %dms, top %v, want %s\n%s", c.index, c.focus, total, c.want, rows, c.top, top)
		}
		for _, r := range rows {
			if strings.Contains(r.fn, "=") {
				t.Errorf("a label frame shows as a function:\n%s", top)
			}
		}
	}
	tags := runPprof(t, tool, "-tags", "-sample_index=wall", "-unit=ms", "-tagfocus", "http.route=/api/cpu", "-tagshow", "http.route", out)
	t.Logf("go tool pprof -tags -tagfocus http.route=/api/cpu -tagshow http.route:\n%s", tags)
	if !strings.Contains(tags, "http.route") || !strings.Contains(tags, "/api/cpu") || strings.Contains(tags, "/api/slow") ||
		strings.Contains(tags, "state") || strings.Contains(tags, "region") {
		t.Errorf("-tags -tagshow http.route:\n%s", tags)
	}
	all := runPprof(t, tool, "-tags", "-sample_index=wall", "-unit=ms", out)
	for _, want := range []string{"http.route", "/api/slow", "http.method", "GET", "task", "import", "region", "parse", "state", "wait_reason", "chan receive"} {
		if !strings.Contains(all, want) {
			t.Errorf("-tags lacks %q:\n%s", want, all)
		}
	}
}
