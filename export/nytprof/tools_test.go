package nytprof

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/proftest"
	"github.com/gotachyon/profiler/internal/testing/testutil"
	"github.com/gotachyon/profiler/reader"
)

// These tests load the exported files with the real Devel::NYTProf
// (Debian libdevel-nytprof-perl): they skip locally when it is missing and
// fail in CI.

// loadScript prints the loader's view with full precision (one tick is
// 1e-7 s): subs' calls/incl/excl and per-line time and count.
const loadScript = `
use strict; use warnings;
use Devel::NYTProf::Data;
my $p = Devel::NYTProf::Data->new({ filename => $ARGV[0], quiet => 1 });
my %fname = map { ($_->fid => $_->filename) } $p->all_fileinfos;
my $subs = $p->subname_subinfo_map;
for my $n (sort keys %$subs) {
    my $si = $subs->{$n};
    printf "sub\t%s\t%s\t%d\t%.7f\t%.7f\n", $n, $fname{$si->fid} // '', $si->calls // 0, $si->incl_time // 0, $si->excl_time // 0;
}
for my $fi ($p->all_fileinfos) {
    my $ld = $fi->line_time_data || [];
    for my $l (0 .. $#$ld) {
        my $e = $ld->[$l] or next;
        next unless @$e;
        printf "line\t%s\t%d\t%.7f\t%d\n", $fi->filename, $l, $e->[0], $e->[1];
    }
}
`

// needNYTProf returns perl once Devel::NYTProf is known to load; the tests
// that run it skip under -short.
func needNYTProf(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs perl and Devel::NYTProf's tools")
	}
	perl := testutil.Tool(t, "perl")
	if err := exec.Command(perl, "-MDevel::NYTProf::Data", "-e1").Run(); err != nil {
		testutil.Missing(t, "perl module Devel::NYTProf::Data (Debian libdevel-nytprof-perl): %v", err)
	}
	return perl
}

// loadWithPerl runs nytprof-summary.pl --strict (no loader warning allowed)
// and returns the loader's numbers.
func loadWithPerl(t *testing.T, perl, file string) *loaded {
	t.Helper()
	summary := testutil.Shared(t, "tools", "nytprof-summary.pl")
	out, err := exec.Command(perl, summary, "--strict", "--no-lines", file).CombinedOutput()
	if err != nil {
		t.Fatalf("nytprof-summary.pl --strict %s: %v\n%s", file, err, out)
	}
	out, err = exec.Command(perl, "-e", loadScript, file).Output()
	if err != nil {
		t.Fatalf("loading %s: %v", file, err)
	}
	l := &loaded{subs: map[refKey]*refSub{}, lines: map[refLine]*decLine{}}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		switch {
		case f[0] == "sub" && len(f) == 6:
			calls, _ := strconv.ParseUint(f[3], 10, 64)
			incl, _ := strconv.ParseFloat(f[4], 64)
			excl, _ := strconv.ParseFloat(f[5], 64)
			k := refKey{f[2], baseName(f[1], f[2])}
			if l.subs[k] == nil {
				l.subs[k] = &refSub{}
			}
			r := l.subs[k]
			r.calls += calls
			r.incl += ticks(incl)
			r.excl += ticks(excl)
		case f[0] == "line" && len(f) == 5:
			line, _ := strconv.Atoi(f[2])
			tm, _ := strconv.ParseFloat(f[3], 64)
			n, _ := strconv.ParseUint(f[4], 10, 64)
			l.lines[refLine{f[1], int32(line)}] = &decLine{ticks: ticks(tm), count: n}
		default:
			t.Fatalf("unexpected loader output %q", sc.Text())
		}
	}
	return l
}

type toolInput struct {
	name string
	src  Source
	opt  Options
}

func toolInputs(t *testing.T) []toolInput {
	var in []toolInput
	add := func(name string, f *reader.File) {
		for _, cpu := range []bool{false, true} {
			in = append(in, toolInput{fmt.Sprintf("%s/oncpu=%v", name, cpu), FromFile(f), Options{OnCPU: cpu, Compress: cpu}})
		}
	}
	for _, path := range publicVectors(t) {
		if strings.HasSuffix(path, ".zstd.bin") || strings.HasSuffix(path, "-checksum.bin") {
			continue // same samples as the uncompressed vector
		}
		add(filepath.Base(path), proftest.Open(t, path))
	}
	demos, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "testdata", "demo", "*.bin"))
	if len(demos) == 0 {
		t.Log("no demo profiles in testdata/demo yet")
	}
	for _, path := range demos {
		add("demo/"+filepath.Base(path), proftest.Open(t, path))
	}
	in = append(in, toolInput{"go_small", goProfile(), goldenCases[0].opt}, toolInput{"split", splitProfile(), Options{}})
	return in
}

func TestRealLoaderMatches(t *testing.T) {
	perl := needNYTProf(t)
	dir := t.TempDir()
	for i, c := range toolInputs(t) {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, fmt.Sprintf("%d.nytprof", i))
			if err := os.WriteFile(file, export(t, c.src, c.opt), 0o644); err != nil {
				t.Fatal(err)
			}
			if diffs := compare(reference(t, c.src, c.opt.OnCPU), loadWithPerl(t, perl, file)); len(diffs) > 0 {
				if len(diffs) > 20 {
					diffs = append(diffs[:20], "...")
				}
				t.Errorf("Devel::NYTProf's numbers differ from the samples:\n%s", strings.Join(diffs, "\n"))
			}
		})
	}
}

func TestNYTProfHTML(t *testing.T) {
	needNYTProf(t)
	html := testutil.Tool(t, "nytprofhtml")
	dir := t.TempDir()
	file := filepath.Join(dir, "go.nytprof")
	if err := os.WriteFile(file, export(t, goProfile(), goldenCases[0].opt), 0o644); err != nil {
		t.Fatal(err)
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
	for _, want := range []string{"github.com/x/y", "Method", "main::", "work", "calculé"} {
		if !bytes.Contains(index, []byte(want)) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(out, "*-line.html"))
	var all []byte
	for _, p := range pages {
		b, _ := os.ReadFile(p)
		all = append(all, b...)
	}
	for _, want := range []string{"func work() {", "return fib(n-1) + fib(n-2)", "No source code available"} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("per-file pages (%d) lack %q", len(pages), want)
		}
	}
}

// TestNYTProfHTMLAll renders the export of every tool input.
func TestNYTProfHTMLAll(t *testing.T) {
	needNYTProf(t)
	html := testutil.Tool(t, "nytprofhtml")
	dir := t.TempDir()
	for i, c := range toolInputs(t) {
		if c.opt.OnCPU {
			continue
		}
		file := filepath.Join(dir, fmt.Sprintf("%d.nytprof", i))
		if err := os.WriteFile(file, export(t, c.src, c.opt), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, fmt.Sprintf("html%d", i))
		cmd := exec.Command(html, "-f", file, "-o", out)
		cmd.Dir = dir
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: nytprofhtml: %v\n%s", c.name, err, b)
		} else if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}

func TestNYTProfCalls(t *testing.T) {
	needNYTProf(t)
	calls := testutil.Tool(t, "nytprofcalls")
	file := filepath.Join(t.TempDir(), "go.nytprof")
	if err := os.WriteFile(file, export(t, goProfile(), goldenCases[0].opt), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(calls, file).CombinedOutput()
	if err != nil {
		t.Fatalf("nytprofcalls: %v\n%s", err, out)
	}
	for _, want := range []string{
		"main::main;main::work 400000",
		"main::main;github.com/x/y::(*T).Method;github.com/x/y::fib;github.com/x/y::fib;github.com/x/y::fib 100000",
	} {
		if !bytes.Contains(out, []byte(want+"\n")) {
			t.Errorf("nytprofcalls output lacks %q:\n%s", want, out)
		}
	}
}

// TestNYTProfHTMLControlFileNames renders a profile whose file names hold a
// NUL byte, a line break and a tab: nytprofhtml names a page after each file
// (a NUL made it die) and its flame graph reads a line per sub with its
// file (a line break made it fail).
func TestNYTProfHTMLControlFileNames(t *testing.T) {
	needNYTProf(t)
	html := testutil.Tool(t, "nytprofhtml")
	p := &Profile{Start: 1_700_000_000_000_000, Every: 10_000}
	mainF := Frame{File: "/src/app/main.go", Func: "main.main", Line: 3}
	for _, file := range []string{"/src/nul\x00byte.go", "/src/new\nline.go", "/src/tab\there.go", "/src/cr\rret.go"} {
		p.Add(1, onCPU, Frame{File: file, Func: "main.f", Line: 5}, mainF)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "ctl.nytprof")
	if err := os.WriteFile(file, export(t, p, Options{}), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "html")
	cmd := exec.Command(html, "-f", file, "-o", out)
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nytprofhtml: %v\n%s", err, b)
	}
	if bytes.Contains(b, []byte("failed")) || bytes.Contains(b, []byte("Invalid")) {
		t.Errorf("nytprofhtml complained:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(out, "all_stacks_by_time.svg")); err != nil {
		t.Errorf("no flame graph: %v", err)
	}
	perl := testutil.Tool(t, "perl")
	summary := testutil.Shared(t, "tools", "nytprof-summary.pl")
	if b, err := exec.Command(perl, summary, "--strict", "--no-lines", file).CombinedOutput(); err != nil {
		t.Errorf("nytprof-summary.pl --strict: %v\n%s", err, b)
	}
}
