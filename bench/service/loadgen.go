package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"time"
)

// latencies is what the load generator reports for one window.
type latencies struct {
	N      int     `json:"n"`
	Errors int     `json:"errors"`
	P50    float64 `json:"p50"`    // µs, send to response
	P99    float64 `json:"p99"`    // µs
	P999   float64 `json:"p999"`   // µs
	P99Q   float64 `json:"p99q"`   // µs, scheduled time to response
	Behind float64 `json:"behind"` // share of requests sent later than 1 ms after their schedule
}

// recorder keeps the latencies of the requests answered in the open window.
type recorder struct {
	mu     sync.Mutex
	on     bool
	svc, q []time.Duration
	errs   int
	behind int
}

func (r *recorder) add(sched, sent, done time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.on {
		return
	}
	if err != nil {
		r.errs++
		return
	}
	r.svc = append(r.svc, done.Sub(sent))
	r.q = append(r.q, done.Sub(sched))
	if sent.Sub(sched) > time.Millisecond {
		r.behind++
	}
}

func (r *recorder) begin() {
	r.mu.Lock()
	r.on, r.svc, r.q, r.errs, r.behind = true, r.svc[:0], r.q[:0], 0, 0
	r.mu.Unlock()
}

func (r *recorder) end() latencies {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.on = false
	l := latencies{N: len(r.svc), Errors: r.errs}
	if l.N == 0 {
		return l
	}
	slices.Sort(r.svc)
	slices.Sort(r.q)
	pct := func(v []time.Duration, p float64) float64 {
		return float64(v[min(len(v)-1, int(float64(len(v))*p))].Microseconds())
	}
	l.P50, l.P99, l.P999 = pct(r.svc, 0.50), pct(r.svc, 0.99), pct(r.svc, 0.999)
	l.P99Q = pct(r.q, 0.99)
	l.Behind = float64(r.behind) / float64(l.N)
	return l
}

// runLoadgen offers rate requests/s to addr over conns keep-alive
// connections, open loop: connection c sends its k-th request at
// t0 + (k + c/conns) * conns/rate, or at once if it is behind. It reads
// "begin" and "end" lines on stdin and answers each "end" with the window's
// latencies as one JSON line on stdout; it exits when stdin closes.
func runLoadgen(addr string, rate, conns int) error {
	rec := &recorder{}
	interval := time.Duration(float64(conns) / float64(rate) * float64(time.Second))
	t0 := time.Now().Add(50 * time.Millisecond)
	for c := range conns {
		tr := &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 1, DisableCompression: true}
		cl := &http.Client{Transport: tr}
		url := "http://" + addr + "/item?key=k" + strconv.Itoa(c*7%1000)
		go func() {
			sched := t0.Add(interval * time.Duration(c) / time.Duration(conns))
			for {
				if d := time.Until(sched); d > 0 {
					time.Sleep(d)
				}
				sent := time.Now()
				resp, err := cl.Get(url)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				rec.add(sched, sent, time.Now(), err)
				sched = sched.Add(interval)
			}
		}()
	}
	in := bufio.NewScanner(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	for in.Scan() {
		switch in.Text() {
		case "begin":
			rec.begin()
		case "end":
			if err := enc.Encode(rec.end()); err != nil {
				return err
			}
		}
	}
	return in.Err()
}
