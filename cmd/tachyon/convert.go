package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gotachyon/profiler/internal/stacktab"
	"github.com/gotachyon/profiler/reader"
)

// converter is one output format of "tachyon convert --to NAME", holding
// the values of its own flags. Each lives in its own file, convert_NAME.go.
type converter interface {
	// flags registers the format's own flags on fs, bound to the converter.
	flags(fs *flag.FlagSet)
	// convert converts the profile in to out (a file or a directory, as
	// the format needs), reporting what it did on stdout and stderr.
	convert(in input, out string, stdout, stderr io.Writer) error
}

// formats is the table of "tachyon convert"'s output formats: --to name,
// a one-line description, and a new converter with its flags unset.
var formats = []struct {
	name    string
	summary string
	new     func() converter
}{
	{"dcpi", "DCPI profile (per-address sample histogram of --binary PROG); approximate: one address per leaf source line",
		func() converter { return new(dcpiConverter) }},
	{"nytprof", "Devel::NYTProf 5.0 data file for nytprofhtml/nytprofcalls (--compress, --on-cpu, --source, --source-root DIR, --bin EXE, --max-name-bytes N)",
		func() converter { return new(nytprofConverter) }},
	{"pprof", "gzipped pprof protobuf for go tool pprof and go build -pgo, values samples, wall, on_cpu (or cpu), labels goroutine, state, wait_reason and the program's own (--type wall|cpu, --binary PROG)",
		func() converter { return new(pprofConverter) }},
	{"speedscope", "speedscope JSON, one sampled profile per goroutine for the busiest (--top N), the rest merged (--labels: label frames at the root)",
		func() converter { return new(speedscopeConverter) }},
	{"spx", "SPX (php-spx v0.4) full reports: OUT is a directory receiving KEY.json and KEY.txt.gz per report",
		func() converter { return new(spxConverter) }},
}

// newConverter returns a new converter for the format named by --to, or
// nil if there is none.
func newConverter(name string) converter {
	for _, f := range formats {
		if f.name == name {
			return f.new()
		}
	}
	return nil
}

func init() {
	register(&command{
		name:    "convert",
		summary: "convert a profile to another format (--to NAME; see 'tachyon help convert')",
		usage:   "--to FORMAT [format flags] [--runs all|latest|ID] FILE... | DIR -o OUT",
		run:     runConvert,
		help:    convertHelp,
	})
}

// convertHelp lists every format with its description and its own flags.
func convertHelp(w io.Writer) {
	fmt.Fprintln(w, "formats:")
	for _, f := range formats {
		fmt.Fprintf(w, "\n  --to %s\n      %s\n", f.name, f.summary)
		fs := flag.NewFlagSet(f.name, flag.ContinueOnError)
		fs.SetOutput(w)
		f.new().flags(fs)
		fs.PrintDefaults()
	}
}

// converterNames lists the formats for the usage and error messages.
func converterNames() string {
	names := make([]string, 0, len(formats))
	for _, f := range formats {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// findTo returns the value of --to/-to in args without parsing the rest.
func findTo(args []string) string {
	for i, a := range args {
		for _, p := range []string{"--to=", "-to="} {
			if strings.HasPrefix(a, p) {
				return a[len(p):]
			}
		}
		if (a == "--to" || a == "-to") && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// runConvert parses the common flags and those of the format --to names
// (found first, so that its flags parse and show in the usage), then runs
// its conversion.
func runConvert(args []string, stdout, stderr io.Writer) int {
	to := findTo(args)
	conv := newConverter(to)
	fs := newFlags(commands["convert"], stderr)
	fs.String("to", "", "output format: "+converterNames())
	out := fs.String("o", "", "output file, - for standard output (or directory, for formats that write several files)")
	runs := runsFlag(fs)
	if conv != nil {
		conv.flags(fs)
	}
	files, code := parseFlags(fs, args)
	switch {
	case code != proceed:
		return code
	case conv == nil:
		fmt.Fprintf(stderr, "tachyon convert: --to must be one of: %s (got %q)\n", converterNames(), to)
		return exitUsage
	case len(files) == 0:
		return usageError(fs, "%v", errNoInput)
	case *out == "":
		return usageError(fs, "needs -o OUT")
	}
	in, release, err := resolveInputRuns(files, *runs, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer release()
	if err := conv.convert(in, *out, stdout, stderr); err != nil {
		var up usageProblem
		if errors.As(err, &up) {
			return usageError(fs, "%s", string(up))
		}
		return fail(stderr, err)
	}
	return exitOK
}

// usageProblem is a converter's complaint about its command line (a flag
// it needs is missing): a usage error, exit status 2, not bad input.
type usageProblem string

func (u usageProblem) Error() string { return string(u) }

// exportToFile opens and validates the profile in, then writes it to the
// file out (or stdout, for Stdout) with export. A failed export leaves out
// as it was.
func exportToFile(in input, out string, stdout io.Writer, export func(io.Writer, *reader.File) error) (err error) {
	f, err := openVerifiedAs(in.path, in.name)
	if err != nil {
		return err
	}
	defer f.Close()
	o, err := createOutputStd(out, stdout)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(o, 256<<10)
	if err := export(bw, f); err != nil {
		o.discard()
		return wrapPath(in.name, err)
	}
	if err := bw.Flush(); err != nil {
		o.discard()
		return err
	}
	return o.commit()
}

// exportInOnePass is exportToFile for an export that reads every sample,
// and so validates the whole file, before it writes a byte (NYTProf,
// speedscope): one pass over the samples, not a verification and then
// the export. The output is created at the first byte; a rejected file
// leaves -o as it was, and the error is the one openVerified would give.
func exportInOnePass(in input, out string, stdout io.Writer, export func(io.Writer, *reader.File) error) error {
	f, err := reader.Open(in.path)
	if err != nil {
		return err
	}
	defer f.Close()
	o := &lazyOutput{path: out, stdout: stdout}
	bw := bufio.NewWriterSize(o, 256<<10)
	if err := export(bw, f); err != nil {
		o.discard()
		if o.err != nil {
			return o.err
		}
		return exportError(in.name, f, err)
	}
	if err := bw.Flush(); err != nil {
		o.discard()
		return err
	}
	return o.commit()
}

// maxStackFramesFlag registers --max-stack-frames into p: the bound on the
// frames an aggregating export keeps across distinct stacks.
func maxStackFramesFlag(fs *flag.FlagSet, p *int) {
	fs.IntVar(p, "max-stack-frames", stacktab.DefaultMaxFrames,
		"most frames kept across the profile's distinct stacks (8 bytes each); past it the export fails")
}

// labelsFlag adds the --labels flag of the exports that leave label frames
// out of their stacks by default.
func labelsFlag(fs *flag.FlagSet, p *bool) {
	fs.BoolVar(p, "labels", false, "keep the label frames (pprof labels, trace tasks and regions) at the root of each stack, \"key=value\"; by default they are left out")
}
