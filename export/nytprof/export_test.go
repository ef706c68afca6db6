package nytprof

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"errors"
	"flag"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/nytprof")

const (
	onCPU  = tachyon.StatusOnCPU | tachyon.StatusHasGIL
	offCPU = 0
)

// goSources are the embedded sources of the hand-made Go profile.
var goSources = map[string]string{
	"/src/app/main.go": "package main\n\nimport \"github.com/x/y\"\n\nfunc main() {\n\tfor {\n\t\twork()\n\t\ty.New().Method()\n\t}\n}\n",
	"/src/app/work.go": "package main\n\nfunc work() {\n\tsum := 0\n\tfor i := 0; i < 1e6; i++ {\n\t\tsum += i\n\t}\n\thelper()\n}\n\nfunc helper() {}\n",
	"/src/x/y/t.go":    "package y\n\ntype T struct{}\n\nfunc New() *T { return &T{} }\n\nfunc (t *T) Method() {\n\tfib(3)\n}\n\nfunc fib(n int) int {\n\tif n < 2 {\n\t\treturn n\n\t}\n\treturn fib(n-1) + fib(n-2)\n}\n",
}

func readMap(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if s, ok := m[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

// goProfile is a small hand-made Go-like profile: two goroutines, recursion,
// a file without source, names needing sanitising, on- and off-CPU samples.
func goProfile() *Profile {
	p := &Profile{Start: 1_700_000_000_000_000, Every: 10_000}
	mainF := func(l int32) Frame { return Frame{File: "/src/app/main.go", Func: "main.main", Line: l} }
	work := func(l int32) Frame { return Frame{File: "/src/app/work.go", Func: "main.work", Line: l} }
	helper := Frame{File: "/src/app/work.go", Func: "main.helper", Line: 11}
	method := Frame{File: "/src/x/y/t.go", Func: "github.com/x/y.(*T).Method", Line: 8}
	fib := func(l int32) Frame { return Frame{File: "/src/x/y/t.go", Func: "github.com/x/y.fib", Line: l} }
	sleep := Frame{File: "/goroot/src/time/sleep.go", Func: "time.Sleep", Line: 0}
	yaml := Frame{File: "/go/pkg/mod/gopkg.in/yaml.v3/yaml.go", Func: "gopkg.in/yaml%2ev3.Unmarshal", Line: 140}
	odd := Frame{File: "/src/app/work.go", Func: "main.odd name;x\"y", Line: 3}
	uni := Frame{File: "/src/app/données.go", Func: "main.calculé", Line: 2}

	for i := 0; i < 3; i++ {
		p.Add(1, onCPU, work(6), mainF(7))
	}
	p.Add(1, onCPU, helper, work(8), mainF(7))
	p.Add(1, offCPU, sleep, work(8), mainF(7))
	p.Add(1, onCPU, mainF(9))
	p.Add(1, onCPU, work(6), mainF(7)) // a new call of work
	p.Add(1, onCPU, fib(13), method, mainF(8))
	p.Add(1, onCPU, fib(13), fib(15), method, mainF(8))
	p.Add(1, onCPU, fib(13), fib(15), fib(15), method, mainF(8))
	p.Add(2, offCPU, yaml, mainF(7))
	p.Add(2, onCPU, odd, mainF(7))
	p.Add(2, onCPU, uni, mainF(7))
	p.Add(2, onCPU)
	p.Add(2, onCPU, mainF(9))
	return p
}

// splitProfile needs tick splitting: 3 samples of 100 s on one line.
func splitProfile() *Profile {
	p := &Profile{Start: 1_700_000_000_000_000, Every: 100_000_000}
	for i := 0; i < 3; i++ {
		p.Add(7, onCPU, Frame{File: "/src/slow.go", Func: "main.slow", Line: 4}, Frame{File: "/src/slow.go", Func: "main.main", Line: 9})
	}
	return p
}

type goldenCase struct {
	name string
	src  func() *Profile
	opt  Options
}

var goldenCases = []goldenCase{
	{"go_small", goProfile, Options{ReadSource: readMap(goSources), Application: "app"}},
	{"go_small_oncpu", goProfile, Options{ReadSource: readMap(goSources), Application: "app", OnCPU: true}},
	{"go_small_nosource", goProfile, Options{Application: "app",
		DeclLine: func(s string) (int, bool) {
			return map[string]int{"main.main": 5, "main.work": 3}[s], s == "main.main" || s == "main.work"
		}}},
	{"go_small_z", goProfile, Options{ReadSource: readMap(goSources), Application: "app", Compress: true}},
	{"split", splitProfile, Options{Application: "split"}},
	{"empty", func() *Profile { return &Profile{Start: 1_700_000_000_000_000, Every: 1000} }, Options{}},
}

func export(t testing.TB, src Source, opt Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := WriteSource(&b, src, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			got := export(t, c.src(), c.opt)
			path := filepath.Join(testutil.RepoRoot(), "testdata", "nytprof", c.name+".nytprof")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(inflated(t, got), inflated(t, want)) {
				t.Errorf("output differs from %s (%d bytes, want %d); run with -update if intended", path, len(got), len(want))
			}
			d, err := decode(got)
			if err != nil {
				t.Fatalf("decoder rejects the output: %v", err)
			}
			if diffs := compare(reference(t, c.src(), c.opt.OnCPU), fromDecoded(d)); len(diffs) > 0 {
				t.Errorf("numbers differ from the samples:\n%s", strings.Join(diffs, "\n"))
			}
		})
	}
}

// zlibMark is the text record before a compressed file's "z" record.
const zlibMark = "#Compressed at level 6 with Go compress/zlib\n"

// inflated returns a file with its zlib stream, if it has one, inflated:
// what a golden file must match, since the bytes compress/zlib writes
// change between Go releases (Go 1.27's differ from Go 1.26's).
func inflated(t *testing.T, b []byte) []byte {
	t.Helper()
	i := bytes.Index(b, []byte(zlibMark))
	if i < 0 {
		return b
	}
	z := i + len(zlibMark)
	if z >= len(b) || b[z] != 'z' {
		t.Fatalf("no z record after %q", zlibMark)
	}
	zr, err := zlib.NewReader(bytes.NewReader(b[z+1:]))
	if err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return append(b[:z+1:z+1], rest...)
}

func TestGoProfileDetails(t *testing.T) {
	d, err := decode(export(t, goProfile(), goldenCases[0].opt))
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for n := range d.subs {
		names[n] = true
	}
	for _, n := range []string{"main::main", "main::work", "github.com/x/y::(*T).Method", "github.com/x/y::fib",
		"gopkg.in/yaml.v3::Unmarshal", "main::odd_name_x_y", "main::calculé", "time::Sleep"} {
		if !names[n] {
			t.Errorf("sub %q missing; have %v", n, names)
		}
	}
	var fnames []string
	for i, f := range d.files {
		fnames = append(fnames, f.name)
		_, has := goSources[f.name]
		if has != (f.flags == 0x36) || has != (len(f.src) > 0) {
			t.Errorf("file %d %s: flags %#x with %d source lines", i+1, f.name, f.flags, len(f.src))
		}
		if has && f.src[5] != "func main() {\n" && f.src[3] != "func work() {\n" && f.src[3] != "type T struct{}\n" {
			t.Errorf("file %s: source not embedded line by line: %v", f.name, f.src)
		}
	}
	if !sortedStrings(fnames) {
		t.Errorf("files not numbered in name order: %v", fnames)
	}
	// work is called twice (re-entered after main moved on), fib's
	// recursive edge has no inclusive time and depth 2.
	var workCalls uint32
	for _, c := range d.calls {
		if c.callee == "main::work" {
			workCalls += c.count
		}
		if c.callee == "github.com/x/y::fib" && c.caller == "github.com/x/y::fib" {
			if c.incl != 0 || c.depth != 2 || ticks(c.reci) != 3*100_000 {
				t.Errorf("recursive edge %+v", c)
			}
		}
		if c.caller == runtimeCaller && c.callee == "main::main" && c.line != 7 {
			t.Errorf("root edge at line %d, want main's first line 7", c.line)
		}
	}
	if workCalls != 2 {
		t.Errorf("main::work calls = %d, want 2", workCalls)
	}
	if s := d.subs["time::Sleep"]; s.first != 0 || s.last != 0 {
		t.Errorf("time::Sleep without lines should be 0-0 (xsub), got %+v", s)
	}
	if got, want := d.end-d.start, 14*0.01; got < want-1e-6 || got > want+1e-6 {
		t.Errorf("duration %v, want %v (14 samples with frames)", got, want)
	}
}

func sortedStrings(s []string) bool {
	for i := 1; i < len(s); i++ {
		if s[i-1] >= s[i] {
			return false
		}
	}
	return true
}

func TestTickSplit(t *testing.T) {
	d, err := decode(export(t, splitProfile(), Options{}))
	if err != nil {
		t.Fatal(err)
	}
	// Three samples of one goroutine at one stack are one statement of
	// 300 s: a counted record of 2^31-1 ticks and a DISCOUNTed rest.
	l := d.lines[[2]uint32{1, 4}]
	if l == nil || l.ticks != 3*1_000_000_000 || l.count != 1 {
		t.Fatalf("line 4: %+v; want 3e9 ticks in 1 counted record", l)
	}
	// More ticks than count records can carry: DISCOUNTed extra records.
	var b bytes.Buffer
	e := &enc{w: bufio.NewWriter(&b)}
	writeLineTime(e, 1, 2, 5_000_000_000, 1)
	e.w.Flush()
	dc := &decoder{r: bufio.NewReader(&b), d: &decoded{attrs: map[string]string{"ticks_per_sec": "10000000"},
		lines: map[[2]uint32]*decLine{}, files: []decFile{{fid: 1}}}}
	var sum uint64
	var counted, discounts int
	for {
		tag, err := dc.r.ReadByte()
		if err != nil {
			break
		}
		if tag == '-' {
			discounts++
			continue
		}
		tk, _ := dc.u32()
		dc.u32()
		dc.u32()
		if tk > math.MaxInt32 {
			t.Fatalf("record with %d ticks wraps", tk)
		}
		sum += uint64(tk)
		counted++
	}
	if sum != 5_000_000_000 || counted-discounts != 1 || discounts != 2 {
		t.Errorf("split: %d ticks, %d records, %d discounts; want 5e9, 3, 2", sum, counted, discounts)
	}
}

func TestDeclLine(t *testing.T) {
	c := goldenCases[2]
	d, err := decode(export(t, c.src(), c.opt))
	if err != nil {
		t.Fatal(err)
	}
	if s := d.subs["main::main"]; s.first != 5 || s.last != 9 {
		t.Errorf("main::main lines %d-%d, want 5-9 (declaration to largest sampled)", s.first, s.last)
	}
	if s := d.subs["main::helper"]; s.first != 11 || s.last != 11 {
		t.Errorf("main::helper lines %d-%d, want 11-11", s.first, s.last)
	}
}

func TestDeclLinesFromBinary(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	decl, err := DeclLines(exe)
	if err != nil {
		t.Fatal(err)
	}
	line, ok := decl("github.com/gotachyon/profiler/export/nytprof.DeclLines")
	if !ok || line < 1 {
		t.Fatalf("DeclLines has no line for itself: %d %v", line, ok)
	}
	src, err := os.ReadFile("decl.go")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(string(src), "\n")[line-1]; !strings.HasPrefix(got, "func DeclLines(") {
		t.Errorf("line %d of decl.go is %q, want the declaration", line, got)
	}
}

// randomProfile makes a profile with random stacks over a few functions,
// recursion, unusable lines and several goroutines.
func randomProfile(seed uint64, n int) *Profile {
	rng := rand.New(rand.NewPCG(seed, 7))
	p := &Profile{Start: 1_700_000_000_000_000 + rng.Uint64N(1e12), Every: 1 + rng.Uint64N(20_000)}
	files := []string{"/a/x.go", "/a/y.go", "", "/b/z.go"}
	funcs := []string{"main.main", "main.a", "main.b", "pkg/q.C", "pkg/q.(*T).M", "rec"}
	stacks := map[uint64][]Frame{}
	for i := 0; i < n; i++ {
		g := rng.Uint64N(4)
		st := stacks[g]
		switch rng.IntN(4) {
		case 0: // same stack
		case 1:
			if len(st) > 0 {
				st = st[:rng.IntN(len(st))]
			}
		default:
			for k := rng.IntN(4); k >= 0; k-- {
				fi := rng.IntN(len(funcs))
				st = append(st, Frame{File: files[fi%len(files)], Func: funcs[fi], Line: int32(rng.IntN(8)) - 1})
			}
		}
		if rng.IntN(20) == 0 && len(st) > 0 {
			st[len(st)-1].Line = 70000
		}
		stacks[g] = st
		frames := make([]Frame, len(st))
		for j := range st {
			frames[j] = st[len(st)-1-j]
		}
		p.Add(g, tachyon.Status(rng.IntN(32)), frames...)
	}
	return p
}

func TestPropertiesRandom(t *testing.T) {
	for seed := uint64(0); seed < 40; seed++ {
		p := randomProfile(seed, 300)
		for _, cpu := range []bool{false, true} {
			d, err := decode(export(t, p, Options{OnCPU: cpu}))
			if err != nil {
				t.Fatalf("seed %d: decoder: %v", seed, err)
			}
			if diffs := compare(reference(t, p, cpu), fromDecoded(d)); len(diffs) > 0 {
				t.Fatalf("seed %d on-CPU %v:\n%s", seed, cpu, strings.Join(diffs, "\n"))
			}
		}
	}
}

// publicVectors returns the valid public Tachyon vectors.
func publicVectors(t *testing.T) []string {
	dir := testutil.Vectors(t, "tachyon")
	paths, err := filepath.Glob(filepath.Join(dir, "*.bin"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vectors in %s: %v", dir, err)
	}
	return paths
}

func TestPropertiesVectors(t *testing.T) {
	for _, path := range publicVectors(t) {
		f := proftest.Open(t, path)
		for _, cpu := range []bool{false, true} {
			var b bytes.Buffer
			if err := Write(&b, f, Options{OnCPU: cpu}); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			d, err := decode(b.Bytes())
			if err != nil {
				t.Fatalf("%s: decoder: %v", path, err)
			}
			if diffs := compare(reference(t, FromFile(f), cpu), fromDecoded(d)); len(diffs) > 0 {
				t.Errorf("%s on-CPU %v:\n%s", filepath.Base(path), cpu, strings.Join(diffs, "\n"))
			}
		}
	}
}

func TestRejectedFileWritesNothing(t *testing.T) {
	dir := testutil.Vectors(t, "tachyon", "corrupt")
	paths, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(paths) == 0 {
		t.Fatal("no corrupt vectors")
	}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := reader.NewFileBytes(data)
		if err != nil {
			continue // rejected before export is possible
		}
		var b bytes.Buffer
		err = Write(&b, f, Options{})
		if err == nil || !errors.Is(err, reader.ErrFormat) || b.Len() != 0 {
			t.Errorf("%s: err %v, %d bytes written; want a format error and no output", filepath.Base(path), err, b.Len())
		}
	}
}

func TestBadFrameIndex(t *testing.T) {
	p := &Profile{Every: 1000, Frames: []Frame{{File: "/a.go", Func: "main.f", Line: 1}},
		Samples: []Sample{{Thread: 1, Stack: []uint32{5}}}}
	var b bytes.Buffer
	if err := WriteSource(&b, p, Options{}); err == nil || b.Len() != 0 {
		t.Fatalf("err %v, %d bytes; want an error and no output", err, b.Len())
	}
}

func TestSubName(t *testing.T) {
	for in, want := range map[string]string{
		"main.main":                  "main::main",
		"main.main.func1":            "main::main.func1",
		"github.com/x/y.(*T).Method": "github.com/x/y::(*T).Method",
		"gopkg.in/yaml%2ev3.F":       "gopkg.in/yaml.v3::F",
		"pkg.Map[go.shape.struct{}]": "pkg::Map[go.shape.struct{}]",
		"a/b.F[github.com/c/d.T]":    "a/b::F[github.com/c/d.T]",
		"<module>":                   "main::<module>",
		"":                           "main::__ANON__",
		"main.with space;semi":       "main::with_space_semi",
		"naïve_résumé":               "main::naïve_résumé",
		"runtime.gopark":             "runtime::gopark",
	} {
		if got := subName(in); got != want {
			t.Errorf("subName(%q) = %q, want %q", in, got, want)
		}
	}
}
