package tachyon_test

import (
	"fmt"

	"github.com/gotachyon/profiler/tachyon"
)

// Each state's status byte, as a writer stores it, and the state and CPU
// flag every reader turns it back into.
func ExampleStatusOf() {
	for s := tachyon.Running; s <= tachyon.Unknown; s++ {
		st := tachyon.StatusOf(s, false)
		fmt.Printf("%-8s status %#02x: %s, on a CPU: %v\n", s, uint8(st), st.State(), st.OnCPU())
	}
	// Output:
	// running  status 0x03: running, on a CPU: true
	// runnable status 0x08: runnable, on a CPU: false
	// blocked  status 0x00: blocked, on a CPU: false
	// syscall  status 0x0c: syscall, on a CPU: false
	// unknown  status 0x04: unknown, on a CPU: false
}

// A state named on a command line, as State.String prints it.
func ExampleParseState() {
	s, err := tachyon.ParseState("syscall")
	fmt.Println(s, err, s.OnCPU())
	_, err = tachyon.ParseState("sleeping")
	fmt.Println(err != nil)
	// Output:
	// syscall <nil> false
	// true
}
