package quietpipe

import (
	"fmt"
	"io"
	"log"
	"os"
)

// Stderr writes to the process's standard error through a duplicate of
// its descriptor, made at each write (so that it follows a program that
// moves descriptor 2 elsewhere): a broken pipe is then an error (EPIPE),
// which the runtime does not turn into SIGPIPE. Where descriptors cannot
// be duplicated it is os.Stderr.
var Stderr io.Writer = stderr{}

type stderr struct{}

func (stderr) Write(p []byte) (int, error) {
	f := dupStderr()
	if f == nil {
		return os.Stderr.Write(p)
	}
	defer f.Close()
	return f.Write(p)
}

// Print logs msg as log.Print does, with the standard logger's prefix and
// flags; while that logger writes to os.Stderr, through Stderr.
func Print(msg string) {
	if log.Writer() != os.Stderr {
		log.Print(msg)
		return
	}
	log.New(Stderr, log.Prefix(), log.Flags()).Output(2, msg)
}

// Printf is Print of fmt.Sprintf(format, args...).
func Printf(format string, args ...any) { Print(fmt.Sprintf(format, args...)) }
