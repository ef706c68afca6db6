package main

import (
	"fmt"
	"io"

	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/reader"
)

func init() {
	register(&command{
		name:    "verify",
		summary: "validate files strictly; prints 'FILE: ok' or 'FILE: offset N: CODE: reason' (FILE quoted as a Go string if not plain)",
		usage:   "FILE|DIR...",
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
	files, release := unfinished(files, stderr)
	defer release()
	for _, path := range expandEach(files, stdout, &code) {
		if err := verifyFile(path); err != nil {
			fmt.Fprintln(stdout, quoteNames(err.Error(), path))
			code = exitBad
			continue
		}
		fmt.Fprintf(stdout, "%s: ok\n", quoteName(path))
	}
	return code
}

// expandEach expands each directory in args to its segment files (see
// merge.Expand); a directory without one is reported on w like a bad file,
// and sets *code to exitBad, without stopping the others.
func expandEach(args []string, w io.Writer, code *int) []string {
	var files []string
	for _, a := range args {
		got, err := merge.Expand([]string{a})
		if err != nil {
			fmt.Fprintln(w, quoteNames(err.Error(), a))
			*code = exitBad
			continue
		}
		files = append(files, got...)
	}
	return files
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
