//go:build !unix

package auto

import "os"

// statusControlCExit is STATUS_CONTROL_C_EXIT, the status Windows's own
// handler exits with on Ctrl-C or a console close when the program does
// not handle it.
const statusControlCExit = -1073741510 // 0xC000013A as an int32

// raise ends the process as the signal's default action would: a
// signal cannot be sent again here, so it exits with the status the
// system's own handler gives.
func raise(os.Signal) { os.Exit(statusControlCExit) }
