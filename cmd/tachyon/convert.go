package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// converter is one output format of "tachyon convert --to NAME".
type converter struct {
	name    string
	summary string
	// setup registers the converter's own flags on fs and returns the
	// function that converts the file in to out (a file or directory name,
	// as the format needs).
	setup func(fs *flag.FlagSet) func(in, out string, stdout, stderr io.Writer) error
}

var converters = map[string]*converter{}

// registerConverter adds a format to "tachyon convert"; each format lives in
// its own file (convert_NAME.go) and registers itself from init.
func registerConverter(c *converter) { converters[c.name] = c }

func init() {
	register(&command{
		name:    "convert",
		summary: "convert a profile to another format (--to NAME; see 'tachyon help convert')",
		usage:   "--to FORMAT [format flags] FILE -o OUT",
		run:     runConvert,
	})
}

func converterNames() string {
	names := make([]string, 0, len(converters))
	for n := range converters {
		names = append(names, n)
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

func runConvert(args []string, stdout, stderr io.Writer) int {
	c := commands["convert"]
	to := findTo(args)
	conv, ok := converters[to]
	fs := newFlags(c, stderr)
	fs.String("to", "", "output format: "+converterNames())
	out := fs.String("o", "", "output file (or directory, for formats that write several files)")
	var do func(in, out string, stdout, stderr io.Writer) error
	if ok {
		do = conv.setup(fs)
	}
	files, parsed := parseFlags(fs, args)
	if !parsed {
		return exitUsage
	}
	if !ok {
		fmt.Fprintf(stderr, "tachyon convert: --to must be one of: %s (got %q)\n", converterNames(), to)
		return exitUsage
	}
	if len(files) != 1 || *out == "" {
		fs.Usage()
		return exitUsage
	}
	if err := do(files[0], *out, stdout, stderr); err != nil {
		return fail(stderr, err)
	}
	return exitOK
}
