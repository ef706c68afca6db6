package gotrace

import (
	"bytes"
	"context"
	"errors"
	"io"
	"runtime/trace"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gotachyon/profiler/internal/tracelabel"
)

// TestStringsOfPastGenerationsGo: the strings a generation's events gave
// are not kept once the next generation is installed. A burst of label
// events (each message a string of the trace) kept its messages reachable
// from the reader's per-generation array until a generation with as many
// strings overwrote them: 150,000 labels of 900 bytes kept 135 MB.
func TestStringsOfPastGenerationsGo(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Skip("trace busy:", err)
	}
	ctx := context.Background()
	pad := strings.Repeat("p", 200)
	for i := range 3000 {
		trace.Log(ctx, tracelabel.Category, strconv.Itoa(i)+pad)
	}
	time.Sleep(1500 * time.Millisecond) // the trace advances its generation about every second
	trace.Log(ctx, tracelabel.Category, "late")
	trace.Stop()

	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ev Event
	gens, logs := map[uint64]bool{}, 0
	for {
		if err := r.Next(&ev); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		gens[r.gen.num] = true
		if ev.Kind == Log {
			_ = r.String(ev.Name)
			logs++
		}
	}
	if len(gens) < 2 || logs < 3001 {
		t.Skipf("%d generations, %d label logs: the trace did not advance", len(gens), logs)
	}
	kept := 0
	for _, s := range r.strs[:cap(r.strs)] {
		if len(s) > len(pad) {
			kept++
		}
	}
	if kept > 0 {
		t.Errorf("%d label messages of past generations still held by the reader", kept)
	}
}
