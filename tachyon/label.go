package tachyon

import (
	"path"
	"sort"
	"strconv"
	"strings"
)

// Labels ride in a file as frames, because the format has no label field.
// A label frame has the reserved file name LabelFile, the function
// "key=value" and line 0, so that every Tachyon reader reads a labelled
// file as frames, and readers of this module turn them back into labels.
//
// A sample's label frames are its outermost frames, one per key, the
// keys in increasing byte order from the outermost inward: a stack
// (innermost first) reads
//
//	[wait reason] f g main.main <labels>:route=/api <labels>:method=GET
//
// for the labels method=GET and route=/api. Every sample of a labelled
// goroutine carries them, whatever its state; a sample without labels has
// none. A key is never empty and never holds "=", so that the first "="
// of a function name splits it; a value may hold anything.
//
// Keys the Go sampler writes from the runtime's execution trace:
// LabelTask, LabelRegion and LabelCreatedBy; LabelLeak from the runtime's
// goroutine leak profile. Other keys are the program's pprof labels.

// LabelFile is the file name of every label frame.
const LabelFile = "<labels>"

// Label keys a Go sampler writes for runtime/trace annotations.
const (
	// LabelTask is the type of the task a goroutine works for: the name
	// given to trace.NewTask, of the task of its innermost region.
	LabelTask = "task"
	// LabelRegion is the type of a goroutine's innermost region
	// (trace.WithRegion, trace.StartRegion).
	LabelRegion = "region"
	// LabelCreatedBy is where a goroutine was created: the function that
	// holds the go statement, a space, and the statement's file base
	// name and line ("main.serve server.go:42"). Each goroutine has its
	// own; it is not inherited.
	LabelCreatedBy = "created_by"
	// LabelLeak marks a goroutine the runtime proved can never run again
	// (Go's goroutineleak profile: blocked on something no running
	// goroutine can reach), with the value LeakUnreachable, on its
	// samples from the profile that found it on.
	LabelLeak = "leak"
)

// LeakUnreachable is the value of LabelLeak.
const LeakUnreachable = "unreachable"

// LabelValuesOver is the value a Go sampler writes for a label whose key
// passed its bound on distinct values (a request or span id, say): the
// samples keep the key, and their time, under this one value.
const LabelValuesOver = "[too many values]"

// CreationSite returns the value of LabelCreatedBy for a go statement in
// function fn at file:line.
func CreationSite(fn, file string, line int) string {
	return fn + " " + path.Base(file) + ":" + strconv.Itoa(line)
}

// Label is one key and value.
type Label struct {
	Key, Value string
}

// String returns "key=value", the function name of l's frame.
func (l Label) String() string { return l.Key + "=" + l.Value }

// ValidLabelKey reports whether key can be carried as a label frame: it
// is not empty and holds no "=".
func ValidLabelKey(key string) bool {
	return key != "" && !strings.Contains(key, "=")
}

// LabelFrame returns the frame that carries l. Its key must be valid
// (ValidLabelKey). A file's strings are UTF-8, and a program's labels need
// not be (a raw id's bytes, a value cut mid-character): each invalid byte
// sequence of the key or value reads U+FFFD.
func LabelFrame(l Label) Frame {
	return Frame{File: LabelFile, Func: strings.ToValidUTF8(l.String(), "\uFFFD")}
}

// LabelOf reports whether fr is a label frame, and returns its label.
func LabelOf(fr Frame) (Label, bool) {
	if fr.File != LabelFile || fr.Line != 0 {
		return Label{}, false
	}
	k, v, ok := strings.Cut(fr.Func, "=")
	if !ok || k == "" {
		return Label{}, false
	}
	return Label{Key: k, Value: v}, true
}

// IsLabel reports whether fr is a label frame.
func IsLabel(fr Frame) bool {
	_, ok := LabelOf(fr)
	return ok
}

// LabelFrames returns the label frames of a sample with the labels ls,
// innermost first as a stack's frames are (the greatest key innermost),
// to be put after its code frames. It sorts ls by key in place, and
// leaves out labels with an invalid key and all but the last of a
// repeated key.
func LabelFrames(ls []Label) []Frame {
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Key < ls[j].Key })
	out := make([]Frame, 0, len(ls))
	for i, l := range ls {
		if !ValidLabelKey(l.Key) || (i+1 < len(ls) && ls[i+1].Key == l.Key) {
			continue
		}
		out = append(out, LabelFrame(l))
	}
	// Innermost first: the greatest key is innermost.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// SplitLabels returns how many of a stack's frames (innermost first) are
// code: the frames before its outermost run of label frames. isLabel
// tells whether the frame at an index is a label frame (readers cache it
// by frame index).
func SplitLabels(n int, isLabel func(i int) bool) int {
	for n > 0 && isLabel(n-1) {
		n--
	}
	return n
}
