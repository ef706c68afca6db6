package spx

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

// TestWorkedExample writes spx-format.md §9 through report and checks the
// exact text and what the UI derives from it.
func TestWorkedExample(t *testing.T) {
	var gz bytes.Buffer
	r := newReport(&gz, false)
	m, a, b, c := r.Func("main.main"), r.Func("main.a"), r.Func("main.b"), r.Func("main.c")
	steps := []struct {
		stack []uint32
		wt    uint64
	}{{[]uint32{m, a}, 0}, {[]uint32{m, a, b}, 10e6}, {[]uint32{m, c}, 20e6}, {nil, 30e6}}
	for _, s := range steps {
		if err := r.Move(s.stack, s.wt, 0); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := r.Close()
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&gz)
	if err != nil {
		t.Fatal(err)
	}
	text, _ := io.ReadAll(zr)
	want := "[events]\n0 1 0\n1 1 0\n2 1 10000000\n2 0 20000000\n1 0 20000000\n3 1 20000000\n3 0 30000000\n0 0 30000000\n" +
		"[functions]\nmain.main\nmain.a\nmain.b\nmain.c\n"
	if string(text) != want {
		t.Fatalf("text:\n%s\nwant:\n%s", text, want)
	}
	if sum.Calls != 4 || sum.Functions != 4 || sum.WallTime != 30e6 {
		t.Fatalf("summary %+v", sum)
	}
	dir := t.TempDir()
	key := "spx-full-20250101_120000-gohost-1234-1"
	os.WriteFile(filepath.Join(dir, key+".txt.gz"), gzipped(t, text), 0o644)
	f, _ := os.Create(filepath.Join(dir, key+".json"))
	if err := writeMeta(f, reportMeta{Key: key, Host: "gohost", PID: 1234, CommandLine: "./app -serve"}, sum); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rep, err := parseUI(dir, key)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Meta["wall_time_ms"].(float64) != 30000 || rep.Meta["custom_metadata_str"] != nil {
		t.Fatalf("meta %v", rep.Meta)
	}
	got := rep.byName()
	for name, w := range map[string][2]float64{"main.main": {30e6, 0}, "main.a": {20e6, 10e6}, "main.b": {10e6, 10e6}, "main.c": {10e6, 10e6}} {
		if f := got[name]; f == nil || f.Calls != 1 || f.Inc[0] != w[0] || f.Exc[0] != w[1] {
			t.Errorf("%s: %+v, want inc/exc %v", name, f, w)
		}
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

func TestFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"main.main":                        "main::main",
		"main.main.func1":                  "main::main.func1",
		"net/http.(*conn).serve":           "net/http::(*conn).serve",
		"example.com/x/y.F[go.shape.int]":  "example.com/x/y::F[go.shape.int]",
		"pkg.G[example.com/a.T]":           "pkg::G[example.com/a.T]",
		"<module>":                         "{module}",
		"sleep_forever":                    "sleep_forever",
		"":                                 "[unknown]",
		"a&b\"c\nd":                        "a+b'c\\u000ad",
		"caf\u00e9":                        "caf\\u00e9",
		"bad\xff":                          "bad\\xff",
		"gopkg.in/yaml.v3.(*parser).parse": "gopkg.in/yaml::v3.(*parser).parse",
	} {
		if got := funcName(in); got != want {
			t.Errorf("funcName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReportTraps checks that nothing is ever left open, values never go
// down, names with newlines cannot break the file, and values beyond 2^53
// are refused.
func TestReportTraps(t *testing.T) {
	var gz bytes.Buffer
	r := newReport(&gz, true)
	a, b := r.Func("a"), r.Func("line\nbreak")
	r.Move(nil, 2, 0)            // before the first call: not in the report
	r.Move([]uint32{a, b}, 5, 1) // origin
	r.Move([]uint32{a}, 9, 4)
	r.Move([]uint32{a, b}, 7, 2) // earlier: raised
	if _, err := r.Close(); err != nil {
		t.Fatal(err)
	}
	zr, _ := gzip.NewReader(&gz)
	text, _ := io.ReadAll(zr)
	want := "[events]\n0 1 0 0\n1 1 0 0\n1 0 4 3\n1 1 4 3\n1 0 4 3\n0 0 4 3\n[functions]\na\nline\\u000abreak\n"
	if string(text) != want {
		t.Fatalf("got %q", text)
	}
	r = newReport(io.Discard, false)
	if err := r.Move([]uint32{r.Func("x")}, MaxValue+1, 0); err == nil {
		t.Fatal("no error past 2^53")
	}
	if err := r.Move([]uint32{7}, 1, 0); err == nil {
		t.Fatal("no error for an unknown function index")
	}
}

// expected is what a report must show, computed from the Tachyon samples
// themselves with the documented timing rules.
type expected struct {
	inc, exc, ct map[string]float64
	calls        map[string]int
	wt           float64
	started      bool
}

type tsample struct {
	ts     uint64
	status tachyon.Status
	names  []string // root first
}

func readThreads(t *testing.T, f *reader.File) (map[[2]uint64][]tsample, []uint64) {
	threads := map[[2]uint64][]tsample{}
	it := f.Samples()
	defer it.Close()
	for it.Next() {
		s := it.Sample()
		var names []string
		for j := len(s.Stack) - 1; j >= 0; j-- {
			names = append(names, funcName(f.Frame(s.Stack[j]).Func))
		}
		k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
		threads[k] = append(threads[k], tsample{s.Timestamp, s.Status, names})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return threads, nil
}

func (e *expected) add(prev, cur []string, dur float64, onCPU bool) {
	if !e.started && len(cur) == 0 {
		return // time before the first call is not in the report
	}
	e.started = true
	seen := map[string]bool{}
	same := true
	for d, n := range cur {
		if same && (d >= len(prev) || prev[d] != n) {
			same = false
		}
		if !same {
			e.calls[n]++
		}
		if !seen[n] {
			seen[n] = true
			e.inc[n] += dur
			if onCPU {
				e.ct[n] += dur
			}
		}
	}
	if len(cur) > 0 {
		e.exc[cur[len(cur)-1]] += dur
	}
	e.wt += dur
}

func newExpected() *expected {
	return &expected{inc: map[string]float64{}, exc: map[string]float64{}, ct: map[string]float64{}, calls: map[string]int{}}
}

// goroutineExpected applies the PerGoroutine rule: a sample lasts until
// the next one unless that is more than gapFactor intervals away; then it
// lasts one interval and the rest is NotSampled; the last lasts one interval.
func goroutineExpected(ss []tsample, iv uint64) *expected {
	e := newExpected()
	var prev []string
	for i, s := range ss {
		own, gap := iv, uint64(0)
		if i+1 < len(ss) {
			d := ss[i+1].ts - s.ts
			if iv == 0 || d <= gapFactor*iv || d/gapFactor <= iv {
				own = d
			} else {
				gap = d - iv
			}
		}
		own, gap = min(own, maxStep), min(gap, maxStep)
		e.add(prev, s.names, float64(own)*1000, s.status.OnCPU())
		prev = s.names
		if gap > 0 {
			g := []string{NotSampled}
			e.add(prev, g, float64(gap)*1000, false)
			prev = g
		}
	}
	return e
}

func check(t *testing.T, name string, rep *uiReport, e *expected, withCT bool) {
	t.Helper()
	if withCT != (len(rep.Metrics) == 2) {
		t.Errorf("%s: metrics %v, want ct=%v", name, rep.Metrics, withCT)
	}
	if rep.MaxWT != e.wt {
		t.Errorf("%s: max wt %v, want %v", name, rep.MaxWT, e.wt)
	}
	got := rep.byName()
	if len(got) != len(e.calls) {
		t.Errorf("%s: %d functions, want %d", name, len(got), len(e.calls))
	}
	for n, calls := range e.calls {
		f := got[n]
		if f == nil {
			t.Errorf("%s: function %q missing", name, n)
			continue
		}
		if f.Calls != calls || f.Inc[0] != e.inc[n] || f.Exc[0] != e.exc[n] {
			t.Errorf("%s: %q calls/inc/exc %d/%v/%v, want %d/%v/%v", name, n, f.Calls, f.Inc[0], f.Exc[0], calls, e.inc[n], e.exc[n])
		}
		if withCT && f.Inc[1] != e.ct[n] {
			t.Errorf("%s: %q ct %v, want %v", name, n, f.Inc[1], e.ct[n])
		}
	}
}

func hasStates(threads map[[2]uint64][]tsample) bool {
	for _, ss := range threads {
		for _, s := range ss {
			if s.status.OnCPU() {
				return true
			}
		}
	}
	return false
}

// checkFile converts path in both layouts and checks every report.
func checkFile(t *testing.T, path string) {
	checkProfile(t, filepath.Base(path), proftest.Open(t, path))
}

// checkProfile converts f in both layouts and checks every report.
func checkProfile(t *testing.T, base string, f *reader.File) {
	threads, _ := readThreads(t, f)
	states := hasStates(threads)
	dir := t.TempDir()
	ws, err := WriteDir(dir, f, Options{Layout: PerGoroutine, Host: "h/o st", PID: 42, CommandLine: "./demo -x"})
	if err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	if len(ws) != len(threads) {
		t.Errorf("%s: %d reports, %d goroutines", base, len(ws), len(threads))
	}
	for _, w := range ws {
		rep, err := parseUI(dir, w.Key)
		if err != nil {
			t.Fatalf("%s %s: %v", base, w.Key, err)
		}
		if rep.Meta["cli_command_line"] != "./demo -x" || rep.Meta["process_pid"].(float64) != 42 || rep.Meta["host_name"] != "h/o st" {
			t.Errorf("%s: meta %v", base, rep.Meta)
		}
		ss := threads[[2]uint64{w.Goroutine, uint64(w.Interp)}]
		check(t, base+" "+w.Key, rep, goroutineExpected(ss, f.Header.Interval), states)
	}
	dir = t.TempDir()
	ws, err = WriteDir(dir, f, Options{Layout: Sequential})
	if err != nil {
		t.Fatalf("%s: %v", base, err)
	}
	if len(threads) == 0 {
		if len(ws) != 0 {
			t.Errorf("%s: reports for an empty profile", base)
		}
		return
	}
	rep, err := parseUI(dir, ws[0].Key)
	if err != nil {
		t.Fatalf("%s sequential: %v", base, err)
	}
	iv := f.Header.Interval
	if iv == 0 {
		iv = defaultInterval
	}
	e := newExpected()
	keys := slices.SortedFunc(maps.Keys(threads), func(a, b [2]uint64) int {
		return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1]))
	})
	for _, k := range keys { // goroutines are separated by closing everything
		ss := threads[k]
		var prev []string
		for _, s := range ss {
			e.add(prev, s.names, float64(min(iv, maxStep))*1000, s.status.OnCPU())
			prev = s.names
		}
	}
	check(t, base+" sequential", rep, e, states)
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%s: sequential wrote %d files", base, len(ents))
	}
}

func TestSharedVectors(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon")
	files, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(files) == 0 {
		t.Fatal("no vectors")
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) { checkFile(t, p) })
	}
}

// TestDemoProfiles checks the demo profiles committed under testdata/demo
// (both demo modes), when present.
func TestDemoProfiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	if len(files) == 0 {
		t.Skip("no testdata/demo/*.bin yet")
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) { checkFile(t, p) })
	}
}

func TestTopAndKeys(t *testing.T) {
	f := proftest.Open(t, testutil.Vectors(t, "tachyon", "threads_8.bin"))
	dir := t.TempDir()
	ws, err := WriteDir(dir, f, Options{Top: 3, Host: "a b", PID: 7})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3 {
		t.Fatalf("%d reports, want 3", len(ws))
	}
	for i, w := range ws {
		if !strings.HasPrefix(w.Key, "spx-full-") || !strings.Contains(w.Key, "-a_b-7-") {
			t.Errorf("key %q", w.Key)
		}
		if i > 0 && w.Samples > ws[i-1].Samples && ws[i-1].Samples > 0 {
			t.Logf("order by on-CPU samples: %d after %d", w.Samples, ws[i-1].Samples)
		}
	}
	if _, err := ParseLayout("nope"); err == nil {
		t.Error("ParseLayout accepted nonsense")
	}
	if math.IsNaN(0) {
		t.Fatal()
	}
}
