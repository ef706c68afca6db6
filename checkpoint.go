package profiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gotachyon/profiler/internal/checkpoint"
	"github.com/gotachyon/profiler/internal/merge"
	"github.com/gotachyon/profiler/internal/own"
	"github.com/gotachyon/profiler/internal/regfile"
	"github.com/gotachyon/profiler/internal/runlock"
	"github.com/gotachyon/profiler/segment"
	"github.com/gotachyon/profiler/writer"
)

// A profile written to a path (WithPath, PROFILE_OUT, or the default
// temporary file) is crash-safe: until Stop, the samples stream into one
// file in the directory PATH.part (PartDir), which a live run holds
// locked, and every checkpoint period a mark beside it records where the
// file so far ends and the header and tables that finish it there
// (internal/checkpoint). Stop finishes the stream, whose cost is what the
// last period wrote, and renames it over PATH, so that PATH is only ever
// replaced by a finished profile, and removes PATH.part. A process that
// dies without Stop (os.Exit, log.Fatal, a panic, a signal, SIGKILL, the
// OOM killer) leaves PATH.part with the profile as of its last
// checkpoint: the CLI reads it where PATH is missing, and the next run of
// the program with the same path recovers it into PATH-crashed-TIME (see
// recoverStale).

// DefaultCheckpoint is the checkpoint period of a profile written to a
// path, unless WithCheckpoint says otherwise: a process that dies loses at
// most about this much of the end of its profile, plus the sampler's lag.
const DefaultCheckpoint = 5 * time.Second

// firstCheckpoint ends the first checkpoint early, so that a process that
// dies soon after Start still leaves a finished profile.
const firstCheckpoint = time.Second

// WithCheckpoint sets how often a profile written to a path is made
// crash-safe (default DefaultCheckpoint; at least MinSegment): every d,
// what was sampled so far is on disk with what finishes it, and outlives
// any exit of the process (see PartDir). Shorter periods lose less at a
// crash and cost a checkpoint (every pending run written out, a mark of
// the tables synced) more often. It has no effect with WithOutput, and with
// WithSegment the segments are the checkpoints.
func WithCheckpoint(d time.Duration) Option {
	return func(c *config) error {
		if d < MinSegment {
			return fmt.Errorf("profiler: WithCheckpoint: %v is shorter than %v", d, MinSegment)
		}
		c.checkpoint = d
		return nil
	}
}

// PartDir returns the directory where a profile being written to path
// is kept, with its last checkpoint, until Stop: path + ".part".
func PartDir(path string) string { return path + segment.PartExt }

// checkOutPath refuses an output path that the profiler must not write
// through or replace: a symbolic link (PROFILE_OUT=app.conf pointing at
// the app's configuration), or anything but a regular file (a FIFO, a
// device such as /dev/stdout's target, a directory). A missing path is
// fine, unless it ends in a separator (a directory's name, which would be
// written as a file); nothing is created or removed here.
func checkOutPath(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && os.IsPathSeparator(path[len(path)-1]):
		return fmt.Errorf("profiler: output %s names a directory (it ends in a separator); name a file, or give WithSegment to write segments in a directory", path)
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("profiler: output %w", err)
	case fi.Mode()&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return fmt.Errorf("profiler: output %s is a symbolic link (to %s): the profiler does not write through links; name a regular file or a new path", path, to)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("profiler: output %w; name a regular file or a new path (a profile is written beside it and renamed over it at Stop)", regfile.NotRegular(path, fi))
	}
	return nil
}

// openPart checks the output path and creates and locks its checkpoint
// directory, setting aside one left by a dead run.
func (p *Profile) openPart(path string) error {
	if err := checkOutPath(path); err != nil {
		return err
	}
	// Absolute, so that a program that changes its working directory
	// does not move where the checkpoints and the profile go.
	path, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("profiler: output %w", err)
	}
	dir := PartDir(path)
	err = os.Mkdir(dir, 0o755)
	if errors.Is(err, fs.ErrExist) {
		if err = p.setAside(path, dir); err == nil {
			err = os.Mkdir(dir, 0o755)
		}
	}
	if err != nil {
		return fmt.Errorf("profiler: checkpoints of %s: %w", path, err)
	}
	lock, err := runlock.AcquireDir(dir)
	if err != nil {
		os.Remove(dir)
		return fmt.Errorf("profiler: checkpoints of %s: %w", path, err)
	}
	p.part, p.lock, p.name = dir, lock, path
	p.recoverOrphans(path, dir)
	return nil
}

// asidePrefix starts the name of a dead run's checkpoint directory set
// aside (see setAside), beside the live one.
func asidePrefix(dir string) string { return filepath.Base(dir) + "-crashed-" }

// recoverOrphans recovers the checkpoint directories set aside whose
// recovery did not end: the run that set one aside ended (it exited, or
// was killed) while recovering it, and nothing else would ever read it.
// Each is recovered under the lock it keeps from its dead run, so that
// one recovery at a time reads it; one that a live process recovers is
// held, and left to it.
func (p *Profile) recoverOrphans(path, dir string) {
	ents, err := os.ReadDir(filepath.Dir(dir))
	if err != nil {
		return
	}
	prefix := asidePrefix(dir)
	for _, e := range ents {
		stamp, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() || stamp == "" {
			continue
		}
		aside := filepath.Join(filepath.Dir(dir), e.Name())
		if _, err := os.Lstat(filepath.Join(aside, runlock.DirLock)); err != nil {
			os.Remove(aside) // empty: a recovery that ended once it had removed its lock
			continue
		}
		lock, err := runlock.AcquireExisting(aside)
		if err != nil {
			continue // a live process recovers it
		}
		out := crashedName(path, stamp)
		// What an interrupted Replace of this recovery left.
		if tmps, err := filepath.Glob(filepath.Join(filepath.Dir(out), globQuote("."+filepath.Base(out)+".tmp-")+"*")); err == nil {
			for _, t := range tmps {
				os.Remove(t)
			}
		}
		own.Go(func() { p.recoverStale(aside, out, lock) })
	}
}

// globQuote escapes the metacharacters of filepath.Match in s.
func globQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// setAside moves an existing checkpoint directory out of the way if a dead
// run left it, and recovers its checkpoints into a finished file in the
// background. A directory without the lock file every run makes is not
// a run's, and is left alone unless it is empty (a run that died before
// making it). It refuses a directory a live process holds, and a path that
// is not a directory.
func (p *Profile) setAside(path, dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s exists and is not a checkpoint directory: move it away", dir)
	}
	if _, err := os.Lstat(filepath.Join(dir, runlock.DirLock)); err != nil {
		if os.Remove(dir) == nil { // empty
			return nil
		}
		return fmt.Errorf("%s exists and is not a profiler's checkpoint directory (it has no %q file): move it away", dir, runlock.DirLock)
	}
	// Locked before it is moved, and held until it is recovered: a run
	// that checked the lock and then renamed would move whatever the
	// path names by then, such as the directory another run of the same
	// path has just made and locked.
	lock, err := runlock.AcquireExisting(dir)
	if errors.Is(err, runlock.ErrHeld) {
		return fmt.Errorf("%s: %w (two processes with the same output path)", dir, runlock.ErrHeld)
	}
	if err != nil {
		return err
	}
	if fi, err = os.Lstat(dir); err != nil || !fi.IsDir() || !lock.In(dir) {
		lock.Close()
		return fmt.Errorf("%s changed while it was being set aside", dir)
	}
	stamp := fi.ModTime().UTC().Format("20060102T150405Z")
	aside := dir + "-crashed-" + stamp
	if _, err := os.Lstat(aside); err == nil {
		// An earlier dead run's, of the same second, not recovered yet.
		aside += fmt.Sprintf("-%d", os.Getpid())
		stamp += fmt.Sprintf("-%d", os.Getpid())
	}
	if err := os.Rename(dir, aside); err != nil {
		lock.Close()
		return err
	}
	own.Go(func() { p.recoverStale(aside, crashedName(path, stamp), lock) })
	return nil
}

// crashedName names the profile recovered from a dead run of path, whose
// checkpoints were last written at stamp: prof.bin becomes
// prof-crashed-20261123T104500Z.bin.
func crashedName(path, stamp string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "-crashed-" + stamp + ext
}

// newCheckpoints starts the checkpointed stream of the profile in its
// PartDir.
func (p *Profile) newCheckpoints(start time.Time) (*checkpoint.Writer, error) {
	ck, err := checkpoint.New(checkpoint.Options{
		Dir: p.part,
		Writer: writer.Options{
			StartTime:   uint64(start.UnixMicro()),
			Interval:    uint64(1e6 / p.cfg.rate),
			Compression: p.cfg.compression,
		},
		First:  firstCheckpoint,
		Period: p.cfg.checkpoint,
		Logf:   p.logf,
	})
	if err != nil {
		return nil, fmt.Errorf("profiler: starting %s: %w", p.outName(), err)
	}
	return ck, nil
}

// recoverStale writes the profile a dead run left in dir (its stream up
// to its last checkpoint; or, from a run of an earlier version, the
// finished checkpoint files, merged) to the file out, then removes dir,
// logging what it did. Only the files the profiler names are removed.
func (p *Profile) recoverStale(dir, out string, lock *runlock.Dir) {
	defer lock.Close() // never Release: its name is the path the directory had
	if checkpoint.Present(dir) {
		left, err := checkpoint.Recover(dir, out)
		if errors.Is(err, checkpoint.ErrNoCheckpoint) || errors.Is(err, checkpoint.ErrNoStream) {
			// It died within its first second, or within its Stop
			// once the profile was in place: nothing to keep.
			removePart(dir, nil)
			return
		}
		if err != nil {
			p.logf("profiler: an earlier run writing the same path did not stop; its profile stays in %s: %v", dir, err)
			return
		}
		removePart(dir, nil)
		p.logf("profiler: an earlier run writing the same path did not stop (killed, or exited without Stop): its profile as of its last checkpoint (%d samples) is now %s", left.Samples, out)
		return
	}
	files, err := merge.Expand([]string{dir})
	if err == nil && len(files) == 0 {
		removePart(dir, nil)
		return
	}
	if err == nil {
		err = mergeInto(out, files)
	}
	if err != nil {
		p.logf("profiler: an earlier run writing the same path did not stop; its checkpoints stay in %s: %v", dir, err)
		return
	}
	removePart(dir, files)
	p.logf("profiler: an earlier run writing the same path did not stop (killed, or exited without Stop): its finished checkpoints (%d files) are now %s", len(files), out)
}

// finishPart renames the stream Stop finished over p.name and removes
// the checkpoint directory; if that directory was removed or replaced
// while profiling, it copies the stream from its open file instead, and
// touches nothing through the path.
func (p *Profile) finishPart() error {
	if !p.ck.Intact() {
		defer p.ck.Release()
		p.lock.Close()
		// The checkpoint directory was removed, moved or replaced (by a
		// link, say) while profiling: its path names nothing of ours, so
		// nothing is renamed or removed through it. The stream is still
		// open: copy it.
		if err := p.ck.CopyTo(p.name); err != nil {
			return fmt.Errorf("profiler: finishing %s: %s was removed or replaced while profiling, and copying the profile failed: %w", p.name, p.part, err)
		}
		p.logf("profiler: %s was removed or replaced while profiling: the profile was written to %s from the open file; nothing in that path was touched", p.part, p.name)
		return nil
	}
	p.ck.Release()
	if err := os.Rename(p.done, p.name); err != nil {
		return fmt.Errorf("profiler: finishing %s (the profile stays in %s): %w", p.name, p.part, err)
	}
	p.lock.Release()
	removePart(p.part, nil)
	return nil
}

// mergeInto writes the merge of files into a new file beside out and
// renames it over out, so that out is replaced only by a finished file. A
// single file is renamed as it is.
func mergeInto(out string, files []string) error {
	if len(files) == 1 {
		return os.Rename(files[0], out)
	}
	return checkpoint.Replace(out, func(f *os.File) error {
		_, err := merge.Merge(f, files, merge.Options{})
		return err
	})
}

// removePart removes a checkpoint directory: the stream and its mark,
// the files listed, unfinished files (*.part) an earlier version's
// checkpoints left, its lock file, and the directory itself if nothing
// else is left in it.
func removePart(dir string, files []string) {
	checkpoint.Remove(dir)
	parts, _ := filepath.Glob(filepath.Join(dir, "*"+segment.PartExt))
	for _, f := range append(files, parts...) {
		os.Remove(f)
	}
	os.Remove(filepath.Join(dir, runlock.DirLock))
	os.Remove(dir)
}

// discardPart removes the checkpoint directory of a profile that failed
// to start: everything in it was created by this run.
func (p *Profile) discardPart() {
	p.lock.Release()
	removePart(p.part, nil)
}
