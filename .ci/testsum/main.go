// Command testsum reads the events of "go test -json" on its standard input
// and prints what go test prints without -json: build errors, the output of
// failing tests, and one line per package (ok, FAIL, or ? when it has no
// test files). Then it prints one more line listing the tests that skipped,
// grouped by reason, or saying that none did: go test shows nothing of a
// passing package, so without that line a skipped test would look like a
// passed one.
//
//	go test -json ./... | go run ./.ci/testsum
//
// It exits with status 1 when a build or a test failed, when a package
// started but never reported a result, when a line of its input is not an
// event, when its input holds no event at all (go test could not start),
// or, under CI=true, when a test skipped.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

func main() {
	module := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		module = bi.Main.Path
	}
	err := run(os.Stdin, os.Stdout, module, os.Getenv("CI") == "true")
	if err != nil && !errors.Is(err, errFailed) {
		fmt.Fprintln(os.Stderr, "testsum:", err)
	}
	if err != nil {
		os.Exit(1)
	}
}

// run summarizes the events read from in onto out, naming packages relative
// to module. It returns an error when the run failed, or when a test
// skipped and noSkips is set.
func run(in io.Reader, out io.Writer, module string, noSkips bool) error {
	s := newSummary(out, module)
	s.noSkips = noSkips
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20) // a test may log long lines
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			s.unexpected(sc.Text())
			continue
		}
		s.add(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read events: %w", err)
	}
	return s.finish()
}
