// Package readme holds the tests that run the README's commands as a new
// user does on a fresh clone, and check that they work as printed. It has
// no code of its own; its tests run beside the other packages' rather than
// lengthening cmd/tachyon's.
package readme
