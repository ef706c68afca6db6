package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/reader"
)

// defaultDumpBytes is dump's default --max-bytes: 1 GiB of JSON. A file a
// few megabytes long can decode to terabytes (a few thousand distinct deep
// stacks, a long name in a deep stack); past the limit dump stops with an
// error that says how to lift it.
const defaultDumpBytes = 1 << 30

func init() {
	register(&command{
		name:    "dump",
		summary: "print the decoded samples as JSON lines, in file order",
		usage:   "[--max-bytes N] FILE",
		run:     runDump,
	})
}

func runDump(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["dump"], stderr)
	maxBytes := fs.Int64("max-bytes", defaultDumpBytes, "most bytes written; past it the command stops and fails (0: no limit)")
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) != 1 {
		return usageError(fs, "needs exactly one FILE, got %d", len(files))
	}
	f, err := openVerified(files[0])
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	if err := dump(f, stdout, *maxBytes); err != nil {
		return fail(stderr, wrapPath(files[0], err))
	}
	return exitOK
}

// dump writes f's samples as JSON lines, each distinct frame encoded once.
func dump(f *reader.File, w io.Writer, maxBytes int64) error {
	enc := jsonl.NewIndexedEncoder(w, len(f.FrameRefs()), f.Frame)
	enc.MaxBytes = maxBytes
	it := f.Samples()
	defer it.Close()
	var n uint64
	for it.Next() {
		s := it.Sample()
		js := jsonl.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, TimestampUS: s.Timestamp, Status: s.Status}
		if err := enc.Encode(&js, s.Stack); err != nil {
			if errors.Is(err, jsonl.ErrMaxBytes) {
				enc.Flush()
				return fmt.Errorf("dump stopped at sample %d: the output reached --max-bytes (%d bytes); pass --max-bytes 0 for no limit", n, maxBytes)
			}
			return err
		}
		n++
	}
	if err := it.Err(); err != nil {
		return err
	}
	return enc.Flush()
}
