package testutil

import "sync"

// PingPong starts pairs of goroutines passing a token over unbuffered
// channels as fast as they can (hundreds of thousands of goroutine switches
// a second) and returns a function that stops them and waits.
func PingPong(pairs int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range pairs {
		a, b := make(chan int), make(chan int)
		wg.Add(2)
		go func() {
			defer wg.Done()
			for {
				select {
				case a <- 1:
				case <-done:
					return
				}
				<-b
			}
		}()
		go func() {
			defer wg.Done()
			for {
				select {
				case <-a:
				case <-done:
					return
				}
				b <- 1
			}
		}()
	}
	return func() { close(done); wg.Wait() }
}
