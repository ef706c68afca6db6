// Package labelframes finds the label frames (tachyon.LabelOf) of a
// file's stacks, once per frame, for the exports that turn them back into
// labels or leave them out of the call stacks they show.
package labelframes
