package main

import (
	"bufio"
	"io"

	"github.com/gotachyon/profiler/internal/jsonl"
)

func init() {
	register(&command{
		name:    "dump",
		summary: "print the decoded samples as JSON lines, in file order",
		usage:   "FILE",
		run:     runDump,
	})
}

func runDump(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["dump"], stderr)
	files, ok := parseFlags(fs, args)
	if !ok || len(files) != 1 {
		fs.Usage()
		return exitUsage
	}
	f, err := openVerified(files[0])
	if err != nil {
		return fail(stderr, err)
	}
	defer f.Close()
	bw := bufio.NewWriterSize(stdout, 256<<10)
	enc := jsonl.NewEncoder(bw)
	it := f.Samples()
	defer it.Close()
	var js jsonl.Sample
	for it.Next() {
		s := it.Sample()
		js = jsonl.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, TimestampUS: s.Timestamp,
			Status: s.Status, Stack: js.Stack[:0]}
		for _, i := range s.Stack {
			fr := f.Frame(i)
			js.Stack = append(js.Stack, jsonl.Frame{File: fr.File, Func: fr.Func, Line: fr.Line})
		}
		if err := enc.Encode(&js); err != nil {
			return fail(stderr, err)
		}
	}
	if err := it.Err(); err != nil {
		return fail(stderr, wrapPath(files[0], err))
	}
	if err := bw.Flush(); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
