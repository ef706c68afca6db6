package main

import (
	"fmt"
	"io"

	"github.com/gotachyon/profiler/reader"
)

func init() {
	register(&command{
		name:    "verify",
		summary: "validate files strictly; prints 'FILE: ok' or 'FILE: offset N: reason'",
		usage:   "FILE...",
		run:     runVerify,
	})
}

func runVerify(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["verify"], stderr)
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) == 0 {
		return usageError(fs, "needs at least one FILE")
	}
	code = exitOK
	for _, path := range files {
		if err := verifyFile(path); err != nil {
			fmt.Fprintln(stdout, err)
			code = exitBad
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", path)
	}
	return code
}

func verifyFile(path string) error {
	f, err := reader.Open(path)
	if err != nil {
		return err // names the file already
	}
	defer f.Close()
	if err := f.Verify(); err != nil {
		return wrapPath(path, err)
	}
	return nil
}
