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
