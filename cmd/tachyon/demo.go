package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/export/dcpi"
	"github.com/gotachyon/profiler/internal/workload/demo"
	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

func init() {
	register(&command{
		name:    "demo",
		summary: "profile a bundled workload of known shape and print what the profile shows",
		usage:   "[-o FILE] [-mode wall|cpu] [-duration D] [-goroutines N] [-rate HZ] [-backend auto|trace|snapshot] [-compression zstd|none]",
		run:     runDemo,
	})
}

func runDemo(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(commands["demo"], stderr)
	out := fs.String("o", "demo.bin", "output `file` (- for standard output)")
	modeS := fs.String("mode", "wall", "sampling `mode`: wall or cpu")
	dur := fs.Duration("duration", 5*time.Second, "how long to run the workload")
	n := fs.Int("goroutines", 100, "size of the idle goroutine pool")
	rate := fs.Int("rate", profiler.DefaultRate, "sampling rate in `Hz`")
	backS := fs.String("backend", "auto", "sampler `backend`: auto, trace or snapshot")
	compS := fs.String("compression", "zstd", "sample region compression: zstd or none")
	dcpiOut := fs.String("dcpi", "", "also write a DCPI leaf-PC histogram of this binary to `file` (- for standard output)")
	pos, code := parseFlags(fs, args)
	if code != proceed {
		return code
	}
	if len(pos) != 0 {
		return usageError(fs, "takes no arguments, got %q", pos)
	}
	mode, err := sampler.ParseMode(*modeS)
	if err != nil {
		fmt.Fprintf(stderr, "tachyon demo: %v\n", err)
		return exitUsage
	}
	backend, err := sampler.ParseBackend(*backS)
	if err != nil {
		fmt.Fprintf(stderr, "tachyon demo: %v\n", err)
		return exitUsage
	}
	comp := tachyon.CompressionZstd
	switch *compS {
	case "zstd":
	case "none":
		comp = tachyon.CompressionNone
	default:
		fmt.Fprintf(stderr, "tachyon demo: unknown compression %q\n", *compS)
		return exitUsage
	}
	if *out == Stdout && *dcpiOut == Stdout {
		return usageError(fs, "-o - and --dcpi - would both write to standard output: give one of them a file")
	}
	if *dur <= 0 || *n < 0 {
		fmt.Fprintln(stderr, "tachyon demo: -duration must be positive and -goroutines not negative")
		return exitUsage
	}

	o, err := createDemoOutput(*out, stdout)
	if err != nil {
		return fail(stderr, err)
	}
	defer o.discard() // nothing once committed
	opts := []profiler.Option{profiler.WithOutput(o.File), profiler.WithMode(mode), profiler.WithRate(*rate),
		profiler.WithBackend(backend), profiler.WithCompression(comp),
		profiler.WithQuiet(true), profiler.WithLogger(log.New(io.Discard, "", 0))}
	var d *output
	if *dcpiOut != "" {
		if d, err = createOutputStd(*dcpiOut, stdout); err != nil {
			return fail(stderr, err)
		}
		defer d.discard()
		// The histogram is written by name, to the temporary file.
		opts = append(opts, profiler.WithObserver(dcpi.AtStop(d.Name(), *rate)))
	}
	p := profiler.Start(opts...)
	if err := p.Err(); err != nil {
		return fail(stderr, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), *dur)
	res, werr := demo.Run(ctx, demo.Config{Goroutines: max(*n, 1)})
	cancel()
	if err := p.Stop(); err != nil {
		return fail(stderr, err)
	}
	if werr != nil {
		return fail(stderr, werr)
	}
	sum, err := summarize(o.Name(), *out)
	if err != nil {
		return fail(stderr, err)
	}
	if err := o.commit(); err != nil {
		return fail(stderr, err)
	}
	if d != nil {
		if err := d.commit(); err != nil {
			return fail(stderr, err)
		}
	}
	if *out == Stdout || *dcpiOut == Stdout { // a profile is on standard output: what it holds goes to stderr
		stdout = stderr
	}
	st := p.Stats()
	fmt.Fprintf(stdout, "wrote %s: %s mode, backend %s, %.1f Hz achieved (asked %d)\n", quoteName(*out), mode, st.Backend, st.AchievedHz, *rate)
	if st.Fallback != "" {
		fmt.Fprintf(stdout, "fell back to snapshots: %s\n", st.Fallback)
	}
	fmt.Fprintf(stdout, "workload measured hotA/hotB: %.1f%% / %.1f%% of thread CPU time\n", 100*res.Split(), 100*(1-res.Split()))
	sum.Print(stdout)
	if *out != Stdout {
		fmt.Fprintf(stdout, "next: tachyon info %s\n", quoteName(*out))
	}
	return exitOK
}

// createDemoOutput is createOutputStd for the demo's profile, which it
// reads back: it must be a regular file (or not exist yet), or Stdout
// (written to a temporary file first).
func createDemoOutput(path string, stdout io.Writer) (*output, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && path != Stdout {
		return nil, fmt.Errorf("%s: is not a regular file: the demo reads its profile back", quoteName(path))
	}
	return createOutputStd(path, stdout)
}

// summarize reads the profile at path, which messages call name, back.
func summarize(path, name string) (demo.Summary, error) {
	f, err := openVerifiedAs(path, name)
	if err != nil {
		return demo.Summary{}, err
	}
	defer f.Close()
	sum, err := demo.Summarize(f)
	if err != nil {
		return sum, wrapPath(name, err)
	}
	return sum, nil
}
