package upload_test

import (
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gotachyon/profiler"
	"github.com/gotachyon/profiler/upload"
)

// Ship a service's profile to Pyroscope a minute at a time: the profile
// is written in segments, and each finalized segment goes to the
// uploader, whose own goroutine pushes it. The blank import of
// upload/auto does the same from PROFILE_OUT, PROFILE_SEGMENT and
// PROFILE_UPLOAD.
func ExampleUploader_Segment() {
	u, err := upload.New(upload.Config{
		URL:     "http://pyroscope:4040", // otlp://collector:4317 for OTLP
		Service: "api",
		Labels:  map[string]string{"env": "staging"},
	})
	if err != nil {
		log.Fatal(err) // a bad URL or label; New does not contact the store
	}
	defer u.Close()
	p := profiler.Start(profiler.WithPath("profiles"), profiler.WithSegment(time.Minute))
	p.OnSegment(u.Segment) // the last segment, at Stop, waits for the queue to empty
	defer p.Stop()

	// ... the service runs ...
}

// The configuration the environment asks for, as upload/auto reads it.
func ExampleFromEnv() {
	os.Setenv(upload.EnvUpload, "otlp://collector:4317")
	os.Setenv(upload.EnvService, "api")
	os.Setenv(upload.EnvLabels, "env=staging, region=eu")
	defer func() {
		for _, v := range []string{upload.EnvUpload, upload.EnvService, upload.EnvLabels} {
			os.Unsetenv(v)
		}
	}()
	cfg, ok, err := upload.FromEnv()
	fmt.Println(ok, err)
	fmt.Println(cfg.URL, cfg.Service, cfg.Labels)
	// Output:
	// true <nil>
	// otlp://collector:4317 api map[env:staging region:eu]
}
