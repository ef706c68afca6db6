// Package leakload is the workload of the goroutine-leak tests: goroutines
// that leak at a steady rate, each blocked for ever sending on an
// unbuffered channel that nothing else holds, beside a pool of healthy
// workers that block and wake regularly. It records where it starts
// each kind, as the label tachyon.LabelCreatedBy names a site, so that a
// profile can be checked against the program's own record.
//
// The leaked goroutines cannot be ended: run the load in a process of
// its own (a test's child process).
package leakload
