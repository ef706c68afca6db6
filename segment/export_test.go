package segment

import "time"

// InjectFault makes the Writer of opts ask fault before every file-system
// operation op ("create", "write", "rename", "remove") on a file name,
// failing it with the error fault returns, and try again every retry.
func InjectFault(opts *Options, retry time.Duration, fault func(op, name string) error) {
	opts.retry, opts.fault = retry, fault
}

// SetFullAt makes the Writer of opts end its newest segment early once
// it holds n samples, instead of FullAt.
func SetFullAt(opts *Options, n uint64) { opts.fullAt = n }

// Stacks returns how many stacks s's handles share, and the frames its
// handles' stacks hold in all.
func Stacks(s *Writer) (shared int, frames int64) { return s.stacks.Shared(), s.stacks.Frames() }
