package sampler_test

import (
	"fmt"
	"log"
	"time"

	"github.com/gotachyon/profiler/sampler"
	"github.com/gotachyon/profiler/tachyon"
)

// counter is a Sink that counts the samples: the least a Sink does.
type counter struct {
	frames  map[tachyon.Frame]uint32
	samples int
}

func (c *counter) Frame(f tachyon.Frame) uint32 {
	i, ok := c.frames[f]
	if !ok {
		i = uint32(len(c.frames))
		c.frames[f] = i
	}
	return i
}

func (c *counter) Goroutine(id uint64) sampler.Goroutine { return counted{c} }

// counted is a counter's handle of a goroutine.
type counted struct{ c *counter }

func (g counted) Write(ts uint64, status tachyon.Status, stack []uint32) error {
	g.c.samples++
	return nil
}

func (g counted) RepeatEvery(ts, step uint64, n int, status tachyon.Status) error {
	g.c.samples += n
	return nil
}

func (counted) Flush()  {}
func (counted) Forget() {}

// Sample wall time at 100 Hz into a Sink of one's own. A profile file
// comes from package profiler, which gives the sampler a writer.
func Example() {
	c := &counter{frames: make(map[tachyon.Frame]uint32)}
	s, err := sampler.Start(sampler.Config{Mode: sampler.Wall, Rate: 100}, c)
	if err != nil {
		log.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the program's work
	stats, err := s.Stop()
	if err != nil {
		log.Fatal(err)
	}
	// The sink is not called once Stop has returned.
	fmt.Println("all samples counted:", uint64(c.samples) == stats.Samples)
	// Output:
	// all samples counted: true
}
