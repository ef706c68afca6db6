package main

import (
	"errors"
	"strings"
	"testing"
)

// The events below are what go test -json (Go 1.26) printed for small
// packages, trimmed of the Time and Elapsed fields testsum ignores.

const passing = `{"Action":"start","Package":"m/ok"}
{"Action":"run","Package":"m/ok","Test":"TestA"}
{"Action":"output","Package":"m/ok","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"m/ok","Test":"TestA","Output":"    a_test.go:3: hello\n"}
{"Action":"output","Package":"m/ok","Test":"TestA","Output":"--- PASS: TestA (0.00s)\n"}
{"Action":"pass","Package":"m/ok","Test":"TestA"}
{"Action":"output","Package":"m/ok","Output":"PASS\n"}
{"Action":"output","Package":"m/ok","Output":"ok  \tm/ok\t0.005s\n"}
{"Action":"pass","Package":"m/ok"}
{"Action":"start","Package":"m/notest"}
{"Action":"output","Package":"m/notest","Output":"?   \tm/notest\t[no test files]\n"}
{"Action":"skip","Package":"m/notest"}
`

const skipping = `{"Action":"start","Package":"m"}
{"Action":"run","Package":"m","Test":"TestSub"}
{"Action":"output","Package":"m","Test":"TestSub","Output":"=== RUN   TestSub\n"}
{"Action":"run","Package":"m","Test":"TestSub/x"}
{"Action":"output","Package":"m","Test":"TestSub/x","Output":"=== RUN   TestSub/x\n"}
{"Action":"output","Package":"m","Test":"TestSub/x","Output":"    a_test.go:4: python3 not on PATH\n"}
{"Action":"output","Package":"m","Test":"TestSub/x","Output":"--- SKIP: TestSub/x (0.00s)\n"}
{"Action":"skip","Package":"m","Test":"TestSub/x"}
{"Action":"run","Package":"m","Test":"TestSub/y"}
{"Action":"output","Package":"m","Test":"TestSub/y","Output":"    a_test.go:4: python3 not on PATH\n"}
{"Action":"output","Package":"m","Test":"TestSub/y","Output":"--- SKIP: TestSub/y (0.00s)\n"}
{"Action":"skip","Package":"m","Test":"TestSub/y"}
{"Action":"run","Package":"m","Test":"TestSub/z"}
{"Action":"output","Package":"m","Test":"TestSub/z","Output":"    a_test.go:6: chromium not on PATH\n"}
{"Action":"output","Package":"m","Test":"TestSub/z","Output":"--- SKIP: TestSub/z (0.00s)\n"}
{"Action":"skip","Package":"m","Test":"TestSub/z"}
{"Action":"output","Package":"m","Test":"TestSub","Output":"--- PASS: TestSub (0.00s)\n"}
{"Action":"pass","Package":"m","Test":"TestSub"}
{"Action":"output","Package":"m","Output":"ok  \tm\t0.005s\n"}
{"Action":"pass","Package":"m"}
{"Action":"start","Package":"m/skip"}
{"Action":"run","Package":"m/skip","Test":"TestLog"}
{"Action":"output","Package":"m/skip","Test":"TestLog","Output":"    a_test.go:3: first a log line\n"}
{"Action":"output","Package":"m/skip","Test":"TestLog","Output":"    a_test.go:4: python3 not on PATH\n"}
{"Action":"output","Package":"m/skip","Test":"TestLog","Output":"--- SKIP: TestLog (0.00s)\n"}
{"Action":"skip","Package":"m/skip","Test":"TestLog"}
{"Action":"run","Package":"m/skip","Test":"TestMulti"}
{"Action":"output","Package":"m/skip","Test":"TestMulti","Output":"    a_test.go:9: trace backend unavailable:\n"}
{"Action":"output","Package":"m/skip","Test":"TestMulti","Output":"        no PCs\n"}
{"Action":"output","Package":"m/skip","Test":"TestMulti","Output":"--- SKIP: TestMulti (0.00s)\n"}
{"Action":"skip","Package":"m/skip","Test":"TestMulti"}
{"Action":"run","Package":"m/skip","Test":"TestNow"}
{"Action":"output","Package":"m/skip","Test":"TestNow","Output":"--- SKIP: TestNow (0.00s)\n"}
{"Action":"skip","Package":"m/skip","Test":"TestNow"}
{"Action":"output","Package":"m/skip","Output":"ok  \tm/skip\t0.004s\n"}
{"Action":"pass","Package":"m/skip"}
`

const failing = `{"Action":"start","Package":"m/bad"}
{"Action":"run","Package":"m/bad","Test":"TestBad"}
{"Action":"output","Package":"m/bad","Test":"TestBad","Output":"=== RUN   TestBad\n"}
{"Action":"output","Package":"m/bad","Test":"TestBad","Output":"stdout line\n"}
{"Action":"run","Package":"m/bad","Test":"TestBad/inner"}
{"Action":"output","Package":"m/bad","Test":"TestBad/inner","Output":"=== RUN   TestBad/inner\n"}
{"Action":"output","Package":"m/bad","Test":"TestBad/inner","Output":"    a_test.go:3: boom\n"}
{"Action":"output","Package":"m/bad","Test":"TestBad/inner","Output":"--- FAIL: TestBad/inner (0.00s)\n"}
{"Action":"fail","Package":"m/bad","Test":"TestBad/inner"}
{"Action":"output","Package":"m/bad","Test":"TestBad","Output":"--- FAIL: TestBad (0.00s)\n"}
{"Action":"fail","Package":"m/bad","Test":"TestBad"}
{"Action":"run","Package":"m/bad","Test":"TestGood"}
{"Action":"output","Package":"m/bad","Test":"TestGood","Output":"=== RUN   TestGood\n"}
{"Action":"output","Package":"m/bad","Test":"TestGood","Output":"    a_test.go:5: quiet\n"}
{"Action":"output","Package":"m/bad","Test":"TestGood","Output":"--- PASS: TestGood (0.00s)\n"}
{"Action":"pass","Package":"m/bad","Test":"TestGood"}
{"Action":"output","Package":"m/bad","Output":"FAIL\n"}
{"Action":"output","Package":"m/bad","Output":"FAIL\tm/bad\t0.007s\n"}
{"Action":"fail","Package":"m/bad"}
`

const buildFailure = `{"ImportPath":"m/build [m/build.test]","Action":"build-output","Output":"# m/build [m/build.test]\n"}
{"ImportPath":"m/build [m/build.test]","Action":"build-output","Output":"build/a_test.go:3:28: undefined: undefined\n"}
{"ImportPath":"m/build [m/build.test]","Action":"build-fail"}
{"Action":"start","Package":"m/build"}
{"Action":"output","Package":"m/build","Output":"FAIL\tm/build [build failed]\n"}
{"Action":"fail","Package":"m/build","FailedBuild":"m/build [m/build.test]"}
`

// unfinished is a package whose test binary died without a result.
const unfinished = `{"Action":"start","Package":"m/hang"}
{"Action":"run","Package":"m/hang","Test":"TestHang"}
{"Action":"output","Package":"m/hang","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Action":"output","Package":"m/hang","Test":"TestHang","Output":"    a_test.go:7: waiting\n"}
`

func summarize(t *testing.T, in string) (string, error) {
	t.Helper()
	var out strings.Builder
	err := run(strings.NewReader(in), &out, "m", false)
	return out.String(), err
}

// TestSkipFailsUnderCI: with noSkips (CI=true), a run with a skipped test
// fails after its skip line; one without passes.
func TestSkipFailsUnderCI(t *testing.T) {
	var out strings.Builder
	if err := run(strings.NewReader(skipping), &out, "m", true); !errors.Is(err, errFailed) {
		t.Errorf("skipping run under CI: error %v, want errFailed", err)
	}
	if !strings.Contains(out.String(), "nothing may skip") {
		t.Errorf("output does not say why it failed:\n%s", out.String())
	}
	if err := run(strings.NewReader(passing), &strings.Builder{}, "m", true); err != nil {
		t.Errorf("passing run under CI: %v", err)
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestPassingRun(t *testing.T) {
	out, err := summarize(t, passing)
	if err != nil {
		t.Fatal(err)
	}
	want := "ok  \tm/ok\t0.005s\n?   \tm/notest\t[no test files]\nslowest of 1 tests (0s in all): ok.TestA 0.0s\nskipped: none\n"
	if out != want {
		t.Errorf("output\n%s\nwant\n%s", out, want)
	}
}

func TestSkipLine(t *testing.T) {
	out, err := summarize(t, skipping)
	if err != nil {
		t.Fatal(err)
	}
	want := "skipped 6: m.TestSub/* (2 subtests), skip.TestLog (python3 not on PATH); m.TestSub/z (chromium not on PATH); " +
		"skip.TestMulti (trace backend unavailable: no PCs); skip.TestNow (no reason given)"
	if got := lastLine(out); got != want {
		t.Errorf("skip line\n%s\nwant\n%s", got, want)
	}
	if strings.Count(out, "\n") != 4 {
		t.Errorf("want two ok lines, the slow line and the skip line, got\n%s", out)
	}
}

func TestFailingRun(t *testing.T) {
	out, err := summarize(t, failing+passing)
	if !errors.Is(err, errFailed) {
		t.Fatalf("error %v, want errFailed", err)
	}
	for _, want := range []string{"stdout line\n", "    a_test.go:3: boom\n", "--- FAIL: TestBad (0.00s)\n", "FAIL\tm/bad\t0.007s\n", "ok  \tm/ok\t0.005s\n", "FAIL\nslowest of ", "\nskipped: none\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, hidden := range []string{"=== RUN", "quiet", "hello"} {
		if strings.Contains(out, hidden) {
			t.Errorf("output shows %q:\n%s", hidden, out)
		}
	}
}

func TestBuildFailure(t *testing.T) {
	out, err := summarize(t, buildFailure+passing)
	if !errors.Is(err, errFailed) {
		t.Fatalf("error %v, want errFailed", err)
	}
	for _, want := range []string{"undefined: undefined\n", "FAIL\tm/build [build failed]\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestUnfinishedPackage(t *testing.T) {
	out, err := summarize(t, passing+unfinished)
	if !errors.Is(err, errFailed) {
		t.Fatalf("error %v, want errFailed", err)
	}
	if want := "    a_test.go:7: waiting\nFAIL\tm/hang\t[no result: go test stopped]\n"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

func TestNotEvents(t *testing.T) {
	out, err := summarize(t, "go: something went wrong\n"+passing)
	if !errors.Is(err, errFailed) {
		t.Fatalf("error %v, want errFailed", err)
	}
	if !strings.HasPrefix(out, "go: something went wrong\n") {
		t.Errorf("the line that is not an event is not passed on:\n%s", out)
	}
}

func TestEmptyInput(t *testing.T) {
	out, err := summarize(t, "")
	if err == nil || errors.Is(err, errFailed) {
		t.Fatalf("error %v, want one that says the input was empty", err)
	}
	if out != "" {
		t.Errorf("output %q for no input", out)
	}
}

func TestNames(t *testing.T) {
	s := newSummary(nil, "github.com/gotachyon/profiler")
	for pkg, want := range map[string]string{
		"github.com/gotachyon/profiler":              "profiler.TestX",
		"github.com/gotachyon/profiler/reader":       "reader.TestX",
		"github.com/gotachyon/profiler/export/pprof": "export/pprof.TestX",
		"example.com/other":                          "example.com/other.TestX",
	} {
		if got := s.name(pkg, "TestX"); got != want {
			t.Errorf("name(%q) = %q, want %q", pkg, got, want)
		}
	}
}

// TestSlowLine: the slowest top-level tests are named slowest first, with
// their time, and their subtests are not.
func TestSlowLine(t *testing.T) {
	in := `{"Action":"pass","Package":"m","Test":"TestA","Elapsed":1.5}
{"Action":"pass","Package":"m","Test":"TestB/sub","Elapsed":9}
{"Action":"pass","Package":"m","Test":"TestB","Elapsed":9.25}
{"Action":"fail","Package":"m/x","Test":"TestC","Elapsed":3}
{"Action":"pass","Package":"m","Elapsed":14}
`
	out, _ := summarize(t, in)
	want := "slowest of 3 tests (14s in all): m.TestB 9.2s, x.TestC 3.0s, m.TestA 1.5s\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
