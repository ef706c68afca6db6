package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gotachyon/profiler/internal/textdist"
)

// Exit codes.
const (
	exitOK    = 0
	exitBad   = 1
	exitUsage = 2
)

// command is one subcommand. run returns the exit code; it reports its own
// errors on stderr.
type command struct {
	name    string
	summary string // one line for the command list
	usage   string // argument synopsis
	run     func(args []string, stdout, stderr io.Writer) int
	// help, if set, prints more than the synopsis for "tachyon help NAME"
	// (convert lists its formats and their flags).
	help func(w io.Writer)
}

var commands = map[string]*command{}

// register adds a subcommand; each command lives in its own file and
// registers itself from init.
func register(c *command) { commands[c.name] = c }

func main() {
	fitAddressSpace()
	watchSignals()
	os.Exit(run(os.Args[1:], pipeOut{os.Stdout}, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	if args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			c, ok := commands[args[1]]
			if !ok {
				fmt.Fprintf(stderr, "tachyon help: unknown command %q\n", args[1])
				usage(stderr)
				return exitUsage
			}
			fmt.Fprintf(stdout, "%s\n\n", c.summary)
			if c.help != nil {
				fmt.Fprintf(stdout, "%s\n\n", synopsis(c))
				c.help(stdout)
				return exitOK
			}
			c.run([]string{"-h"}, stdout, stdout) // the synopsis and the flags
			return exitOK
		}
		usage(stdout)
		return exitOK
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tachyon: unknown command %q\n", args[0])
		if near := nearestCommand(args[0]); near != "" {
			fmt.Fprintf(stderr, "did you mean %q?\n\n", near)
		}
		usage(stderr)
		return exitUsage
	}
	return c.run(args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: tachyon <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'tachyon help <command>' for its usage.")
}

// synopsis is c's usage line.
func synopsis(c *command) string {
	return strings.TrimSpace("usage: tachyon " + c.name + " " + c.usage)
}

// newFlags returns a flag set for a command that prints its usage on stderr.
// Flags may come before or after the positional arguments.
func newFlags(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tachyon "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, synopsis(c))
		fs.PrintDefaults()
	}
	return fs
}

// proceed is parseFlags' exit code when the command should go on.
const proceed = -1

// parseFlags parses args allowing flags after positional arguments (as in
// "tachyon convert FILE -o OUT"). It returns the positional arguments and
// proceed, or the code to exit with once the flag package has printed the
// usage: exitOK for -h or --help, exitUsage for a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) (pos []string, code int) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK
			}
			return nil, exitUsage
		}
		rest := fs.Args()
		i := 0
		for i < len(rest) && (len(rest[i]) < 2 || rest[i][0] != '-') {
			i++
		}
		pos = append(pos, rest[:i]...)
		if i == len(rest) {
			return pos, proceed
		}
		if rest[i] == "--" {
			return append(pos, rest[i+1:]...), proceed
		}
		args = rest[i:]
	}
}

// usageError says what is wrong with a command line (quoted, as fail
// quotes, if it is not one plain line), then prints the command's usage,
// on the flag set's output (stderr), and returns exitUsage.
func usageError(fs *flag.FlagSet, format string, args ...any) int {
	fmt.Fprintf(fs.Output(), "%s: %s\n", fs.Name(), quoteName(fmt.Sprintf(format, args...)))
	fs.Usage()
	return exitUsage
}

// fail prints err and returns the exit code for bad input. A message
// that is not one plain line (a file name in it holds a line break or
// another control character, and no quoteName quoted it) is printed
// quoted, so that it cannot forge a line. An export's limit error is
// followed by the flags that move the limit.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "tachyon: %s%s\n", quoteName(err.Error()), limitHint(err))
	return exitBad
}

// nearestCommand returns the command nearest to name, or "" if none is
// near: at most one edit per three bytes of the longer name.
func nearestCommand(name string) string {
	best, bestD := "", -1
	for n := range commands {
		d := textdist.Distance(name, n)
		if 3*d <= max(len(name), len(n)) && (bestD < 0 || d < bestD || d == bestD && n < best) {
			best, bestD = n, d
		}
	}
	return best
}
