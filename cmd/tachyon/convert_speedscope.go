package main

import (
	"errors"
	"flag"
	"io"
	"path/filepath"

	"github.com/gotachyon/profiler/export/speedscope"
	"github.com/gotachyon/profiler/reader"
)

// speedscopeConverter writes speedscope JSON, a profile per busiest
// goroutine.
type speedscopeConverter struct {
	top       int
	maxFrames int
	labels    bool
}

func (c *speedscopeConverter) flags(fs *flag.FlagSet) {
	fs.IntVar(&c.top, "top", speedscope.DefaultTop, "goroutines with a profile of their own (busiest first; -1 for all); the rest are merged")
	maxStackFramesFlag(fs, &c.maxFrames)
	labelsFlag(fs, &c.labels)
}

func (c *speedscopeConverter) convert(in input, out string, stdout, _ io.Writer) error {
	if c.top == 0 {
		return errors.New("--top must be at least 1, or -1 for every goroutine")
	}
	opt := speedscope.Options{Top: c.top, Name: filepath.Base(in.name), MaxStackFrames: c.maxFrames, Labels: c.labels}
	return exportInOnePass(in, out, stdout, func(w io.Writer, f *reader.File) error {
		return speedscope.Write(w, f, opt)
	})
}
