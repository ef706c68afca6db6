package proftest

import (
	"fmt"
	"testing"

	"github.com/gotachyon/profiler/internal/testing/seekbuf"
	"github.com/gotachyon/profiler/reader"
	"github.com/gotachyon/profiler/tachyon"
	"github.com/gotachyon/profiler/writer"
)

// Wall shape: what a wall-clock profile of a server looks like to an
// exporter.
const (
	wallStart    = 1_700_000_000_000_000
	wallInterval = 10_000 // µs
	wallFlush    = 400    // ticks between the sampler's flushes of a run
)

// Wall returns, in memory, a zstd wall-clock profile of idle goroutines
// parked for all ticks (one stack each, in long REPEAT runs flushed every
// 400 ticks, the last ones waking up half way through) and two busy
// goroutines whose stacks and states change every few ticks, with gaps
// and a status change inside a run: the file shape for which exporters
// must do work in proportion to records, not samples.
func Wall(tb testing.TB, idle, ticks int) *reader.File {
	tb.Helper()
	var out seekbuf.Buffer
	w, err := writer.New(&out, writer.Options{StartTime: wallStart, Interval: wallInterval, Compression: tachyon.CompressionZstd})
	if err != nil {
		tb.Fatal(err)
	}
	b := wallBuilder{w: w, frames: wallFrames(w)}
	if err := b.write(idle, ticks); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	f, err := reader.NewFileBytes(out.Bytes())
	if err != nil {
		tb.Fatal(err)
	}
	return f
}

// wallFrames interns the frames the wall profile's stacks use.
func wallFrames(w *writer.Writer) []uint32 {
	var idx []uint32
	for i, fn := range []string{"[select]", "runtime.selectgo", "main.idleWorker", "main.main",
		"main.hotA", "main.hotB", "crypto/sha256.block", "main.serve", "[chan receive]", "main.wait"} {
		idx = append(idx, w.Frame(tachyon.Frame{File: fmt.Sprintf("/src/app/f%d.go", i%4), Func: fn, Line: int32(10 + i)}))
	}
	return idx
}

type wallBuilder struct {
	w      *writer.Writer
	frames []uint32
}

// write writes idle parked goroutines and two busy ones for ticks ticks.
func (b *wallBuilder) write(idle, ticks int) error {
	f := b.frames
	parked := []uint32{f[0], f[1], f[2], f[3]}
	waking := []uint32{f[8], f[9], f[2], f[3]}
	for g := range idle {
		h := b.w.Thread(uint64(100+g), 0)
		if err := b.park(h, parked, waking, ticks, g >= idle-idle/10); err != nil {
			return err
		}
	}
	return b.busy(ticks)
}

// Statuses of the wall profile.
const (
	parked   tachyon.Status = 0 // blocked
	runnable                = tachyon.StatusGILRequested
	running                 = tachyon.StatusOnCPU
)

// at returns the time of tick k.
func at(k int) uint64 { return wallStart + uint64(k)*wallInterval }

// park writes ticks samples of h parked at stack in runs flushed every
// wallFlush ticks, as the sampler writes them. A goroutine that wakes
// moves to stack wake half way, and is runnable for its last ten ticks
// (a status change inside a run).
func (b *wallBuilder) park(h *writer.Thread, stack, wake []uint32, ticks int, wakes bool) error {
	if err := h.Write(at(0), parked, stack); err != nil {
		return err
	}
	half := ticks / 2
	for tick := 1; tick < ticks; {
		if wakes && tick == half {
			if err := h.Write(at(tick), parked, wake); err != nil {
				return err
			}
			tick++
			continue
		}
		end := min(ticks, (tick/wallFlush+1)*wallFlush)
		status := parked
		switch {
		case wakes && tick < half:
			end = min(end, half)
		case wakes && tick >= ticks-10:
			status = runnable
		case wakes:
			end = min(end, ticks-10)
		}
		if err := h.RepeatEvery(at(tick), wallInterval, end-tick, status); err != nil {
			return err
		}
		if end%wallFlush == 0 || end == ticks {
			h.Flush()
		}
		tick = end
	}
	return nil
}

// busy writes two goroutines that run hotA and hotB, change stacks every
// few ticks, and miss a tick now and then (a gap inside a REPEAT run).
func (b *wallBuilder) busy(ticks int) error {
	f := b.frames
	stacks := [][]uint32{{f[6], f[4], f[7], f[3]}, {f[4], f[7], f[3]}, {f[5], f[7], f[3]}, {f[6], f[5], f[7], f[3]}}
	for g := range 2 {
		h := b.w.Thread(uint64(1+g), 0)
		for tick := 0; tick < ticks; tick++ {
			if tick%97 == 13 {
				continue // missed: the next sample is two intervals on
			}
			st := stacks[(tick/(3+g)+g)%len(stacks)]
			status := running
			if tick%11 == 5 {
				status = runnable
			}
			if err := h.Write(at(tick), status, st); err != nil {
				return err
			}
		}
	}
	return nil
}
