package pyroscope_test

import (
	"context"
	"log"
	"os"
	"time"

	"github.com/google/pprof/profile"
	"github.com/gotachyon/profiler/upload/pyroscope"
)

// Push one pprof profile (such as export/pprof's of a Tachyon file) to a
// Pyroscope server. package upload does this for every segment, with a
// bounded queue and retries.
func ExampleClient_Send() {
	c, err := pyroscope.New("http://pyroscope:4040", "api", map[string]string{"env": "staging"})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	f, err := os.Open("api.pb.gz") // as "tachyon convert --to pprof" writes it
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		log.Fatal(err)
	}
	payload, err := c.Encode(p)
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Send(ctx, payload); err != nil {
		log.Printf("push: %v (retryable: %v)", err, c.Retryable(err))
	}
}
