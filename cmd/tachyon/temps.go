package main

import (
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// The temporary files and directories a command makes (a merge of several
// inputs, a profile finished from checkpoints, standard output's staging
// file, an SPX report's stage, a temporary file beside -o) are removed by
// the command once done. A process that ends early would leave them
// behind: one interrupted (SIGINT, SIGTERM, SIGHUP), or one whose standard
// output closes early (`tachyon dump FILE | head`), which the runtime
// ends with SIGPIPE without running deferred code. temps removes what is
// left in both cases, then the process ends as it would have: by the
// same signal.

// temps is the set of temporary paths made and not yet removed.
var temps struct {
	sync.Mutex
	paths map[string]bool
	ended bool // removeTemps ran: the process is ending
}

// addTemp records path, a temporary file or directory just made, to be
// removed if the process ends early (at once, if it is ending).
func addTemp(path string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.ended {
		os.RemoveAll(path)
		return
	}
	if temps.paths == nil {
		temps.paths = map[string]bool{}
	}
	temps.paths[path] = true
}

// forgetTemp forgets path, which the command has renamed into place.
func forgetTemp(path string) {
	temps.Lock()
	delete(temps.paths, path)
	temps.Unlock()
}

// dropTemp removes path (a file, or a directory with what it holds) and
// forgets it.
func dropTemp(path string) {
	temps.Lock()
	delete(temps.paths, path)
	temps.Unlock()
	os.RemoveAll(path)
}

// removeTemps removes every temporary path recorded; addTemp removes new
// ones at once from then on.
func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	temps.ended = true
	for p := range temps.paths {
		os.RemoveAll(p)
	}
	temps.paths = nil
}

// watchSignals removes the temporary paths when the process is
// interrupted, then lets the signal end it. SIGPIPE is watched so that a
// write to a closed standard output returns an error (see pipeOut)
// instead of ending the process at once. A signal the process was started
// with ignored (a background job's SIGINT, nohup's SIGHUP) is left alone:
// watching it would make it deliverable.
func watchSignals() {
	c := make(chan os.Signal, 4)
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE} {
		if !signal.Ignored(sig) {
			signal.Notify(c, sig)
		}
	}
	go func() {
		for sig := range c {
			if sig == syscall.SIGPIPE {
				continue // a closed stderr, or a pipe of the command's own
			}
			removeTemps()
			signal.Reset(sig)
			if p, err := os.FindProcess(os.Getpid()); err == nil {
				p.Signal(sig)
			}
			time.Sleep(time.Second) // the signal ends the process
			os.Exit(exitBad)
		}
	}()
}

// pipeOut is standard output. A write to it once the reader has gone
// (EPIPE) removes the temporary paths and ends the process with SIGPIPE,
// as the runtime does for a program that does not watch SIGPIPE.
type pipeOut struct{ f *os.File }

func (o pipeOut) Write(p []byte) (int, error) {
	n, err := o.f.Write(p)
	o.check(err)
	return n, err
}

// ReadFrom keeps io.Copy's copy from a file within the kernel.
func (o pipeOut) ReadFrom(r io.Reader) (int64, error) {
	n, err := o.f.ReadFrom(r)
	o.check(err)
	return n, err
}

func (o pipeOut) check(err error) {
	if err == nil || !errors.Is(err, syscall.EPIPE) {
		return
	}
	removeTemps()
	// Unwatched, SIGPIPE on a write to standard output ends the process.
	signal.Reset(syscall.SIGPIPE)
	o.f.Write([]byte{'\n'})
	os.Exit(exitBad) // where the runtime does not end it so
}
