package groundtruth

import (
	"crypto/sha256"
	"errors"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	goidpkg "github.com/gotachyon/profiler/internal/goid"
)

// The roles of the workload's goroutines.
const (
	Handler     = "handler" // blocks on a TCP read, then computes (sha256)
	Duty        = "duty"    // sleeps 60% of each period, spins 40%
	Spinner     = "spinner" // spins in spinA, spinB, spinC: 50/30/20
	Sleeper     = "sleeper" // time.Sleep in a loop
	ChanWaiter  = "chan"    // blocked on a channel receive
	MutexWaiter = "mutex"   // blocked on a sync.Mutex
	SyscallRole = "syscall" // blocked in a raw read(2) on a pipe
	Pool        = "pool"    // idle goroutines in a select
)

// Config sizes the workload.
type Config struct {
	Pool int    // idle goroutines (default 50)
	Seed uint64 // seed of the random phase lengths
}

// Workload is a running ground-truth workload.
type Workload struct {
	cfg  Config
	stop chan struct{}
	wg   sync.WaitGroup
	logs []*log

	ch      chan int
	mu      sync.Mutex
	pipeR   *os.File
	pipeW   *os.File
	ln      net.Listener
	srv     net.Conn
	cli     net.Conn
	stopped time.Time
}

// Start starts the workload; every goroutine has begun its first phase when
// it returns.
func Start(cfg Config) (*Workload, error) {
	if cfg.Pool <= 0 {
		cfg.Pool = 50
	}
	w := &Workload{cfg: cfg, stop: make(chan struct{}), ch: make(chan int)}
	perMilli() // calibrate before any goroutine runs
	if err := w.open(); err != nil {
		w.close()
		if w.pipeR != nil {
			w.pipeR.Close()
		}
		return nil, err
	}
	w.mu.Lock() // the mutex waiter blocks until Stop
	var ready sync.WaitGroup
	start := func(role string, locked bool, body func(l *log, rng *rand.Rand)) {
		l := &log{role: role, locked: locked}
		if locked {
			// Room for minutes of phases: growing the record would
			// allocate in the middle of the phases it measures.
			l.phases = make([]phase, 0, 1<<16)
		}
		w.logs = append(w.logs, l)
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(len(w.logs))))
		w.wg.Add(1)
		ready.Add(1)
		go func() {
			defer w.wg.Done()
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			l.id = goid()
			ready.Done()
			body(l, rng)
			l.finish()
		}()
	}
	start(Handler, true, w.handler)
	start(Duty, true, w.duty)
	start(Spinner, true, w.spinner)
	start(Sleeper, false, w.sleeper)
	start(ChanWaiter, false, w.chanWaiter)
	start(MutexWaiter, false, w.mutexWaiter)
	start(SyscallRole, false, w.syscallReader)
	for range cfg.Pool {
		start(Pool, false, w.poolWorker)
	}
	w.wg.Add(1)
	go func() { defer w.wg.Done(); w.feed() }()
	ready.Wait()
	time.Sleep(20 * time.Millisecond) // every goroutine in its first phase
	return w, nil
}

// Busy phases last a drawn amount of work, not a drawn time: a phase that
// ended at a deadline would end, more often than by chance, right after
// the operating system resumed its thread on a loaded machine, which is
// also when its CPU timer is likely to fire.

// perMilli is the work of about a millisecond on this machine, measured
// once: spin rounds, and sha256 blocks.
var perMilli = sync.OnceValues(func() (spin, hash int) {
	measure := func(f func(n int)) int {
		n := 16
		for {
			t := time.Now()
			f(n)
			if d := time.Since(t); d >= 5*time.Millisecond {
				return max(1, int(float64(n)*float64(time.Millisecond)/float64(d)))
			}
			n *= 2
		}
	}
	return measure(spinRounds), measure(hashBlocks)
})

// work returns the number of units, at per units per millisecond, in d.
func work(d time.Duration, per int) int {
	return max(1, int(float64(per)*float64(d)/float64(time.Millisecond)))
}

// open makes the handler's TCP connection and the syscall reader's pipe.
func (w *Workload) open() error {
	var err error
	if w.pipeR, w.pipeW, err = os.Pipe(); err != nil {
		return err
	}
	w.pipeR.Fd() // blocking mode: a read blocks in the system call
	if w.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return err
	}
	accepted := make(chan error, 1)
	go func() {
		var err error
		w.srv, err = w.ln.Accept()
		accepted <- err
	}()
	if w.cli, err = net.Dial("tcp", w.ln.Addr().String()); err != nil {
		w.ln.Close()
		<-accepted
		return err
	}
	return <-accepted
}

// Stop ends every goroutine and waits for them; their records are complete
// when it returns.
func (w *Workload) Stop() {
	if w.stopped.IsZero() {
		w.stopped = time.Now()
		close(w.stop)
		close(w.ch)
		w.mu.Unlock()
		w.close()
	}
	w.wg.Wait()
	w.pipeR.Close()
}

// close closes the connections and the pipe's write end, which ends the
// goroutines blocked on them.
func (w *Workload) close() {
	if w.pipeW != nil {
		w.pipeW.Close()
	}
	for _, c := range []net.Conn{w.cli, w.srv} {
		if c != nil {
			c.Close()
		}
	}
	if w.ln != nil {
		w.ln.Close()
	}
}

func (w *Workload) stopping() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// uniform returns a duration drawn uniformly from [lo, hi).
func uniform(rng *rand.Rand, lo, hi time.Duration) time.Duration {
	return lo + time.Duration(rng.Int64N(int64(hi-lo)))
}

// handler serves requests of one byte: a read that blocks in IO wait until
// the feeder writes, then about 10-30 ms of hashing, then a one-byte reply.
func (w *Workload) handler(l *log, rng *rand.Rand) {
	_, hash := perMilli()
	buf := make([]byte, 1)
	for {
		l.enter("handlerRead", Waiting)
		if !handlerRead(w.srv, buf) {
			return
		}
		l.enter("handlerCompute", Active)
		handlerCompute(work(uniform(rng, 10*time.Millisecond, 30*time.Millisecond), hash))
		l.enter("handlerReply", Active)
		if !handlerReply(w.srv, buf) {
			return
		}
	}
}

// feed is the handler's client: it waits for each reply, then 20-60 ms,
// then sends the next request.
func (w *Workload) feed() {
	rng := rand.New(rand.NewPCG(w.cfg.Seed, 0))
	buf := []byte{1}
	for !w.stopping() {
		if _, err := w.cli.Write(buf); err != nil {
			return
		}
		if _, err := w.cli.Read(buf); err != nil {
			return
		}
		select {
		case <-w.stop:
			return
		case <-time.After(uniform(rng, 20*time.Millisecond, 60*time.Millisecond)):
		}
	}
}

// duty sleeps 60% and spins 40% of periods of 20-80 ms (the spin is
// measured in work, so it may take longer on a loaded machine).
func (w *Workload) duty(l *log, rng *rand.Rand) {
	spin, _ := perMilli()
	for !w.stopping() {
		p := uniform(rng, 20*time.Millisecond, 80*time.Millisecond)
		l.enter("dutySleep", Waiting)
		dutySleep(p * 6 / 10)
		l.enter("dutySpin", Active)
		dutySpin(work(p*4/10, spin))
	}
}

// spinner spins in spinA, spinB and spinC for 50, 30 and 20% of cycles of
// about 4-14 ms of work.
func (w *Workload) spinner(l *log, rng *rand.Rand) {
	spin, _ := perMilli()
	for !w.stopping() {
		c := work(uniform(rng, 4*time.Millisecond, 14*time.Millisecond), spin)
		l.enterWork("spinA", Active, c*5/10)
		spinA(c * 5 / 10)
		l.enterWork("spinB", Active, c*3/10)
		spinB(c * 3 / 10)
		l.enterWork("spinC", Active, c*2/10)
		spinC(c * 2 / 10)
	}
}

// sleeper sleeps 5-50 ms at a time.
func (w *Workload) sleeper(l *log, rng *rand.Rand) {
	for !w.stopping() {
		d := uniform(rng, 5*time.Millisecond, 50*time.Millisecond)
		l.enter("sleeperSleep", Waiting)
		sleeperSleep(d)
	}
}

func (w *Workload) chanWaiter(l *log, _ *rand.Rand) {
	l.enter("chanWait", Waiting)
	chanWait(w.ch)
}

func (w *Workload) mutexWaiter(l *log, _ *rand.Rand) {
	l.enter("mutexWait", Waiting)
	mutexWait(&w.mu)
}

func (w *Workload) syscallReader(l *log, _ *rand.Rand) {
	l.enter("syscallRead", Syscall)
	syscallRead(int(w.pipeR.Fd()))
}

func (w *Workload) poolWorker(l *log, _ *rand.Rand) {
	l.enter("poolWait", Waiting)
	poolWait(w.ch, w.stop)
}

// goid returns the calling goroutine's id.
func goid() uint64 {
	id := goidpkg.Current()
	if id == 0 {
		panic(errors.New("groundtruth: no goroutine id in the traceback"))
	}
	return id
}

// The phase functions. Each is a function of its own, so that a sample's
// stack names the phase.

//go:noinline
func handlerRead(c net.Conn, buf []byte) bool {
	_, err := c.Read(buf)
	return err == nil
}

//go:noinline
func handlerReply(c net.Conn, buf []byte) bool {
	_, err := c.Write(buf)
	return err == nil
}

//go:noinline
func handlerCompute(blocks int) { hashBlocks(blocks) }

// hashBlocks hashes n blocks of 4 KiB. It is inlined into its callers.
func hashBlocks(n int) {
	var block [4096]byte
	for range n {
		sum := sha256.Sum256(block[:])
		block[0] = sum[0]
	}
}

//go:noinline
func dutySleep(d time.Duration) { time.Sleep(d) }

//go:noinline
func dutySpin(rounds int) { spinRounds(rounds) }

//go:noinline
func spinA(rounds int) { spinRounds(rounds) }

//go:noinline
func spinB(rounds int) { spinRounds(rounds) }

//go:noinline
func spinC(rounds int) { spinRounds(rounds) }

// spinSink keeps the spins' results alive; each phase adds to it once.
var spinSink atomic.Uint64

// spinRounds computes n rounds of 256 steps of a linear congruential
// generator. It is one function called by every spinning phase, not inlined
// into each: the spinner's truth counts its phases' rounds as of equal CPU
// cost, which holds only for one copy of the loop (copies placed apart in
// the binary ran at per-round costs 10-15 % apart, by build).
//
//go:noinline
func spinRounds(n int) {
	x := uint64(n)
	for range n {
		for range 256 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	spinSink.Add(x)
}

//go:noinline
func sleeperSleep(d time.Duration) { time.Sleep(d) }

//go:noinline
func chanWait(ch chan int) {
	for range ch {
	}
}

//go:noinline
func mutexWait(mu *sync.Mutex) {
	mu.Lock()
	defer mu.Unlock()
}

//go:noinline
func syscallRead(fd int) {
	var b [1]byte
	for {
		n, err := syscall.Read(fd, b[:])
		if n <= 0 && err != syscall.EINTR {
			return
		}
	}
}

//go:noinline
func poolWait(jobs <-chan int, stop <-chan struct{}) {
	for {
		select {
		case _, ok := <-jobs:
			if !ok {
				return
			}
		case <-stop:
			return
		}
	}
}
