package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gotachyon/profiler/internal/jsonl"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

func init() {
	register(&command{
		name:    "encode",
		summary: "encode a JSON-lines sample stream (meta line first) into a Tachyon file",
		usage:   "[--compress zstd|none] IN.jsonl OUT",
		run:     runEncode,
	})
}

func runEncode(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["encode"], stderr)
	comp := fs.String("compress", "zstd", "sample region compression: zstd or none")
	files, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(files) != 2 {
		return usageError(fs, "needs an input and an output file, got %d arguments", len(files))
	}
	var c tachyon.Compression
	switch *comp {
	case "zstd":
		c = tachyon.CompressionZstd
	case "none":
		c = tachyon.CompressionNone
	default:
		fmt.Fprintf(stderr, "tachyon encode: --compress must be zstd or none, not %q\n", *comp)
		return exitUsage
	}
	if err := encodeFile(files[0], files[1], c); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}

func encodeFile(in, out string, c tachyon.Compression) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	input, err := jsonl.NewInput(src)
	if err != nil {
		return fmt.Errorf("%s: %w", quoteName(in), err)
	}
	o, err := createOutput(out)
	if err != nil {
		return err
	}
	w, err := writer.New(o, writer.Options{StartTime: input.Meta.StartTimeUS, Interval: input.Meta.IntervalUS, Compression: c})
	if err != nil {
		o.discard()
		return fmt.Errorf("%s: %w", quoteName(out), err)
	}
	var s jsonl.Sample
	var ws writer.Sample
	clock := timestamps{start: input.Meta.StartTimeUS, last: make(map[[2]uint64]uint64)}
	for {
		err := input.Next(&s)
		if err == io.EOF {
			break
		}
		if err == nil {
			err = clock.check(&s, input.Line())
		}
		if err == nil {
			ws = writer.Sample{ThreadID: s.ThreadID, InterpreterID: s.InterpreterID, Timestamp: s.TimestampUS, Status: s.Status, Frames: s.Stack}
			err = w.WriteSample(&ws)
		}
		if err != nil {
			w.Close()
			o.discard()
			return fmt.Errorf("%s: %w", quoteName(in), err)
		}
	}
	if err := w.Close(); err != nil {
		o.discard()
		return fmt.Errorf("%s: %w", quoteName(out), err)
	}
	return o.commit()
}

// timestamps checks that each thread's timestamps do not go back, from the
// start time on: a sample's delta is unsigned, so the format cannot hold a
// step back, and the writer would record it as 0.
type timestamps struct {
	start uint64
	last  map[[2]uint64]uint64 // (thread id, interpreter id) -> latest
}

func (c *timestamps) check(s *jsonl.Sample, line int) error {
	k := [2]uint64{s.ThreadID, uint64(s.InterpreterID)}
	prev, seen := c.last[k]
	switch {
	case !seen && s.TimestampUS < c.start:
		return fmt.Errorf("line %d: timestamp %d is before the start time %d (the format cannot hold it)", line, s.TimestampUS, c.start)
	case seen && s.TimestampUS < prev:
		return fmt.Errorf("line %d: timestamp %d of thread %d goes back from its previous %d (the format cannot hold it)", line, s.TimestampUS, s.ThreadID, prev)
	}
	c.last[k] = s.TimestampUS
	return nil
}
