package reader

import "sync"

// A lifetime is a File's open or closed state. A read of the file's bytes
// runs inside use, so Close, which takes the lock to end the lifetime,
// waits for reads under way and never unmaps pages under one; every read
// after it gives ErrClosed. Reads take the lock once per read of the
// sample region (a refill of the iterator's buffer, or a zstd block),
// never per sample.
type lifetime struct {
	mu     sync.RWMutex
	closed bool
}

// err returns ErrClosed once the lifetime has ended, nil before.
func (l *lifetime) err() error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	return nil
}

// use runs fn unless the lifetime has ended, holding it open until fn
// returns.
func (l *lifetime) use(fn func() error) error {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if l.closed {
		return ErrClosed
	}
	return fn()
}

// end ends the lifetime and then runs release, once no read is under way.
// It returns ErrClosed if the lifetime had already ended.
func (l *lifetime) end(release func() error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	l.closed = true
	return release()
}
