package auto_test

import (
	"log"
	"os"

	"github.com/gotachyon/profiler/auto"
)

// With the blank import (or this one), PROFILE_OUT=prof.bin ./service
// profiles the whole run; Stop before any os.Exit finishes the file, and
// reports what went wrong, if anything did.
func ExampleStop() {
	code := run()
	if err := auto.Stop(); err != nil {
		log.Printf("profile: %v", err)
	}
	os.Exit(code)
}

func run() int { return 0 }

// The running profile, to hook its segments or captures: nil when the
// environment started none.
func ExampleProfile() {
	if p := auto.Profile(); p != nil {
		p.OnSegment(func(path string, last bool) {
			log.Printf("segment %s finalized (last: %v)", path, last)
		})
	}
}
