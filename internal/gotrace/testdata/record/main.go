// Command record writes to stdout a short execution trace, with CPU
// samples, of a busy program: parked goroutines, a loopback HTTP client
// and server, goroutine churn, coroutine switches, a goroutine that
// computes and makes system calls, and tasks, regions and label logs.
// The traces beside this directory were written by it under each Go
// release, named after it:
//
//	GOTOOLCHAIN=go1.27.4 go run . > ../go1.27.4.trace
//
// Its own module (go 1.25), so that older releases build it.
package main

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/pprof"
	rtrace "runtime/trace"
	"sync"
	"time"
)

func main() {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range 50 {
		go func() {
			select {
			case <-stop:
			case <-time.After(time.Hour + time.Duration(i)):
			}
		}()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"ok":true}`)
	}))
	loop := func(f func()) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					f()
					time.Sleep(200 * time.Microsecond)
				}
			}
		}()
	}
	loop(func() {
		if resp, err := http.Get(srv.URL); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	})
	loop(func() {
		var cw sync.WaitGroup
		for range 10 {
			cw.Add(1)
			go func() { defer cw.Done(); time.Sleep(time.Microsecond) }()
		}
		cw.Wait()
	})
	loop(func() {
		next, done := iter.Pull(func(yield func(int) bool) {
			for i := range 20 {
				if !yield(i) {
					return
				}
			}
		})
		for _, ok := next(); ok; _, ok = next() {
		}
		done()
	})
	loop(func() {
		x := 0
		for i := range 300000 {
			x += i * i
		}
		_ = x
		os.Getpid()
		runtime.Gosched()
	})
	loop(func() {
		ctx, task := rtrace.NewTask(context.Background(), "job")
		rtrace.WithRegion(ctx, "outer", func() {
			r := rtrace.StartRegion(ctx, "inner")
			rtrace.Log(ctx, "gotachyon.labels", "\x01k\x01v")
			rtrace.Log(ctx, "other", "not returned")
			r.End()
			done := make(chan struct{})
			go func() {
				defer close(done)
				rtrace.WithRegion(ctx, "child", func() { rtrace.Log(ctx, "gotachyon.labels", "") })
			}()
			<-done
		})
		task.End()
	})
	time.Sleep(20 * time.Millisecond)
	pprof.StartCPUProfile(io.Discard)
	if err := rtrace.Start(os.Stdout); err != nil {
		panic(err)
	}
	time.Sleep(150 * time.Millisecond)
	rtrace.Stop()
	pprof.StopCPUProfile()
	close(stop)
	wg.Wait()
	srv.Close()
}
