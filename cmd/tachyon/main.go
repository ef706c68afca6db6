// Command tachyon inspects, checks and converts Tachyon v2 profiles.
//
// Usage:
//
//	tachyon <command> [flags] [args]
//
// Run "tachyon help" for the list of commands. Exit status: 0 success, 1 bad
// input (the message names the file and the byte offset), 2 usage error.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
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
}

var commands = map[string]*command{}

// register adds a subcommand; each command lives in its own file and
// registers itself from init.
func register(c *command) { commands[c.name] = c }

func main() {
	fitAddressSpace()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				fmt.Fprintf(stdout, "usage: tachyon %s %s\n\n%s\n", c.name, c.usage, c.summary)
				return exitOK
			}
		}
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "tachyon: unknown command %q\n", args[0])
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

// newFlags returns a flag set for a command that prints its usage on stderr.
// Flags may come before or after the positional arguments.
func newFlags(c *command, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("tachyon "+c.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: tachyon %s %s\n", c.name, c.usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args allowing flags after positional arguments (as in
// "tachyon convert FILE -o OUT"). It returns the positional arguments, or
// ok=false after a usage error has been reported.
func parseFlags(fs *flag.FlagSet, args []string) (pos []string, ok bool) {
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, false
			}
			return nil, false
		}
		rest := fs.Args()
		i := 0
		for i < len(rest) && (len(rest[i]) < 2 || rest[i][0] != '-') {
			i++
		}
		pos = append(pos, rest[:i]...)
		if i == len(rest) {
			return pos, true
		}
		if rest[i] == "--" {
			return append(pos, rest[i+1:]...), true
		}
		args = rest[i:]
	}
}

// fail prints err and returns the exit code for bad input.
func fail(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "tachyon: %v\n", err)
	return exitBad
}
