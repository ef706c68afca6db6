package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
)

// event is one line of "go test -json" (see go doc cmd/test2json). Build
// events carry ImportPath instead of Package.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
	Elapsed    float64 // seconds, on a test's or package's end
}

// errFailed reports a failed run whose failures are already printed.
var errFailed = errors.New("tests failed")

// line is one line of a package's output; test is "" for the package's own.
type line struct{ test, text string }

// pkg is a package whose tests are running.
type pkg struct {
	lines []line
	quiet map[string]bool // tests that passed or skipped: output not shown
}

// skip is a test that skipped and why: top names the top-level test in its
// package, sub the subtest ("" for the top-level test itself).
type skip struct{ top, sub, reason string }

// timed is a top-level test and how long it took, in seconds.
type timed struct {
	name    string
	elapsed float64
}

// summary follows the events of one go test run.
type summary struct {
	out    io.Writer
	module string
	// noSkips fails a run with a skipped test: CI (CI=true) provides
	// everything the tests need, so a skip there hides a missing check.
	noSkips bool
	pkgs    map[string]*pkg
	skips   []skip
	slow    []timed // the top-level tests that ended, with their time
	events  int
	failed  bool
}

func newSummary(out io.Writer, module string) *summary {
	return &summary{out: out, module: module, pkgs: map[string]*pkg{}}
}

// unexpected passes on a line that is not an event: go test -json writes
// nothing else, so the run is not what it seems.
func (s *summary) unexpected(text string) {
	fmt.Fprintln(s.out, text)
	s.failed = true
}

// add takes one event.
func (s *summary) add(e event) {
	s.events++
	switch e.Action {
	case "build-output":
		io.WriteString(s.out, e.Output)
		return
	case "build-fail":
		s.failed = true
		return
	}
	p := s.pkgs[e.Package]
	if p == nil {
		p = &pkg{quiet: map[string]bool{}}
		s.pkgs[e.Package] = p
	}
	switch e.Action {
	case "output":
		p.lines = append(p.lines, line{e.Test, e.Output})
	case "pass", "skip", "fail":
		if e.Test != "" {
			s.testEnded(p, e)
		} else {
			s.packageEnded(p, e)
		}
	}
}

// testEnded records a test's result: a passed or skipped test's output is
// not shown, a failed test's is when its package ends.
func (s *summary) testEnded(p *pkg, e event) {
	if !strings.Contains(e.Test, "/") {
		s.slow = append(s.slow, timed{s.name(e.Package, e.Test), e.Elapsed})
	}
	switch e.Action {
	case "pass":
		p.quiet[e.Test] = true
	case "skip":
		p.quiet[e.Test] = true
		top, sub, _ := strings.Cut(e.Test, "/")
		s.skips = append(s.skips, skip{s.name(e.Package, top), sub, reason(p.output(e.Test))})
	case "fail":
		s.failed = true
	}
}

// packageEnded prints a package's result: its ok or ? line when it passed,
// the output of its failed and unfinished tests and its own when it failed.
func (s *summary) packageEnded(p *pkg, e event) {
	delete(s.pkgs, e.Package)
	if e.Action == "fail" {
		s.failed = true
		s.printFailed(p)
		return
	}
	for _, l := range p.lines {
		if l.test == "" && (strings.HasPrefix(l.text, "ok ") || strings.HasPrefix(l.text, "? ")) {
			io.WriteString(s.out, l.text)
		}
	}
}

// printFailed prints a failed package's output in order, without the
// output of its passed and skipped tests and without the "=== RUN" lines.
func (s *summary) printFailed(p *pkg) {
	for _, l := range p.lines {
		if !p.quiet[l.test] && !strings.HasPrefix(l.text, "=== ") {
			io.WriteString(s.out, l.text)
		}
	}
}

// finish ends the run: it fails the packages that never ended, prints the
// skip line and says whether the run passed.
func (s *summary) finish() error {
	if s.events == 0 {
		return errors.New("no go test -json events on standard input")
	}
	for _, name := range slices.Sorted(maps.Keys(s.pkgs)) {
		s.failed = true
		s.printFailed(s.pkgs[name])
		fmt.Fprintf(s.out, "FAIL\t%s\t[no result: go test stopped]\n", name)
	}
	if s.failed {
		fmt.Fprintln(s.out, "FAIL")
	}
	fmt.Fprintln(s.out, s.slowLine())
	fmt.Fprintln(s.out, s.skipLine())
	if s.noSkips && len(s.skips) > 0 {
		fmt.Fprintln(s.out, "FAIL: tests skipped under CI=true, where nothing may skip")
		return errFailed
	}
	if s.failed {
		return errFailed
	}
	return nil
}

// skipLine lists the skipped tests grouped by reason, in the order the
// reasons first appeared. Subtests of one test that skipped for the same
// reason are counted, not named: "pkg.TestX/* (36 subtests)".
func (s *summary) skipLine() string {
	if len(s.skips) == 0 {
		return "skipped: none"
	}
	var reasons []string
	byReason := map[string][]skip{}
	for _, k := range s.skips {
		if byReason[k.reason] == nil {
			reasons = append(reasons, k.reason)
		}
		byReason[k.reason] = append(byReason[k.reason], k)
	}
	groups := make([]string, len(reasons))
	for i, r := range reasons {
		groups[i] = fmt.Sprintf("%s (%s)", strings.Join(names(byReason[r]), ", "), r)
	}
	return fmt.Sprintf("skipped %d: %s", len(s.skips), strings.Join(groups, "; "))
}

// slowest is how many tests slowLine names.
const slowest = 12

// slowLine names the slowest top-level tests, slowest first, so that a
// run's log shows where its time went.
func (s *summary) slowLine() string {
	if len(s.slow) == 0 {
		return "slowest: none"
	}
	slices.SortStableFunc(s.slow, func(a, b timed) int { return cmp.Compare(b.elapsed, a.elapsed) })
	var total float64
	for _, t := range s.slow {
		total += t.elapsed
	}
	top := make([]string, 0, slowest)
	for _, t := range s.slow[:min(slowest, len(s.slow))] {
		top = append(top, fmt.Sprintf("%s %.1fs", t.name, t.elapsed))
	}
	return fmt.Sprintf("slowest of %d tests (%.0fs in all): %s", len(s.slow), total, strings.Join(top, ", "))
}

// names names skipped tests in order: a top-level test as itself, a lone
// subtest by its full name, several subtests of one test by their count.
func names(skips []skip) []string {
	var order []string
	subs := map[string][]string{}
	for _, k := range skips {
		key := k.top
		if k.sub != "" {
			key += "/"
		}
		if _, seen := subs[key]; !seen {
			order = append(order, key)
		}
		subs[key] = append(subs[key], k.sub)
	}
	out := make([]string, len(order))
	for i, key := range order {
		switch n := len(subs[key]); {
		case !strings.HasSuffix(key, "/"):
			out[i] = key
		case n == 1:
			out[i] = key + subs[key][0]
		default:
			out[i] = fmt.Sprintf("%s* (%d subtests)", key, n)
		}
	}
	return out
}

// name names a test by its package's path inside the module (the root
// package by its last element) and the test's name.
func (s *summary) name(pkgPath, test string) string {
	rel := pkgPath
	switch {
	case s.module == "":
	case pkgPath == s.module:
		rel = path.Base(s.module)
	default:
		rel = strings.TrimPrefix(pkgPath, s.module+"/")
	}
	return rel + "." + test
}

// output returns the lines test printed.
func (p *pkg) output(test string) []string {
	var out []string
	for _, l := range p.lines {
		if l.test == test {
			out = append(out, l.text)
		}
	}
	return out
}

// logLine matches the start of a message of t.Log, t.Skip and the like:
// indentation, file:line and ": ".
var logLine = regexp.MustCompile(`^\s*[^\s:]+\.go:\d+: `)

// reason returns the last message a skipped test logged (the one t.Skip
// wrote), its continuation lines joined with spaces.
func reason(lines []string) string {
	var msg []string
	for _, l := range lines {
		l = strings.TrimRight(l, "\n")
		trimmed := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(l, "=== ") || strings.HasPrefix(trimmed, "--- "):
		case logLine.MatchString(l):
			msg = []string{l[len(logLine.FindString(l)):]}
		case trimmed != "":
			msg = append(msg, trimmed)
		}
	}
	if len(msg) == 0 {
		return "no reason given"
	}
	return strings.Join(msg, " ")
}
