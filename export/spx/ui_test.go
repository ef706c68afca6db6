package spx

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// uiFunc is one row of the UI's flat profile, plus the call-tree facts
// the tests need.
type uiFunc struct {
	Calls    int
	Inc, Exc []float64 // per metric; outermost activations only
}

// uiReport is what the SPX v0.4 UI's own aggregation (report.html +
// profileData.js) derives from a report, computed the same way: start
// pushes a frame, end pops the top frame, exclusive = inclusive minus the
// direct children's inclusive, the exclusive value of a nested call of F is
// removed from the children total of the nearest open ancestor that is also
// F, and the flat profile sums inclusive and exclusive over calls with no
// ancestor of the same function.
type uiReport struct {
	Meta    map[string]any
	Metrics []string
	Names   []string
	Funcs   map[int]*uiFunc
	MaxWT   float64
	Events  int
	Ends    int
}

type uiFrame struct {
	fn       int
	start    []float64
	children []float64
}

// parseUI reads DIR/KEY.json and DIR/KEY.txt.gz, enforcing every trap of
// spx-format.md §8 as an error instead of silently mis-reading.
func parseUI(dir, key string) (*uiReport, error) {
	rep := &uiReport{Funcs: map[int]*uiFunc{}}
	js, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	if err := dec.Decode(&rep.Meta); err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("json: more than one value")
	}
	for _, f := range []string{"key", "exec_ts", "host_name", "process_pid", "process_tid", "process_pwd", "cli",
		"cli_command_line", "http_request_uri", "http_method", "http_host", "custom_metadata_str", "wall_time_ms",
		"peak_memory_usage", "called_function_count", "call_count", "recorded_call_count", "enabled_metrics"} {
		if _, ok := rep.Meta[f]; !ok {
			return nil, fmt.Errorf("json: field %s missing", f)
		}
	}
	if rep.Meta["key"] != key {
		return nil, fmt.Errorf("json: key %v != file name %s", rep.Meta["key"], key)
	}
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("._-", c)) {
			return nil, fmt.Errorf("key %q holds %q", key, c)
		}
	}
	ms, _ := rep.Meta["enabled_metrics"].([]any)
	known := map[string]int{"wt": 0, "ct": 1, "it": 2, "zm": 3}
	last := -1
	for _, m := range ms {
		s, _ := m.(string)
		k, ok := known[s]
		if !ok || k <= last {
			return nil, fmt.Errorf("enabled_metrics %v: unknown or out of order", ms)
		}
		last = k
		rep.Metrics = append(rep.Metrics, s)
	}
	if len(rep.Metrics) == 0 || rep.Metrics[0] != "wt" {
		return nil, fmt.Errorf("enabled_metrics %v lacks wt", ms)
	}
	gz, err := os.Open(filepath.Join(dir, key+".txt.gz"))
	if err != nil {
		return nil, err
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		return nil, err
	}
	if err := rep.parseEvents(zr); err != nil {
		return nil, err
	}
	if n := int(rep.Meta["called_function_count"].(float64)); n != len(rep.Names) {
		return nil, fmt.Errorf("called_function_count %d, %d names", n, len(rep.Names))
	}
	for _, f := range []string{"call_count", "recorded_call_count"} {
		if n := int(rep.Meta[f].(float64)); n != rep.Ends {
			return nil, fmt.Errorf("%s %d, %d end events", f, n, rep.Ends)
		}
	}
	if w := rep.Meta["wall_time_ms"].(float64); w != math.Floor(rep.MaxWT/1000) {
		return nil, fmt.Errorf("wall_time_ms %v, max wt %v ns", w, rep.MaxWT)
	}
	return rep, nil
}

func (rep *uiReport) parseEvents(r io.Reader) error {
	br := bufio.NewReaderSize(r, 1<<16)
	n := len(rep.Metrics)
	section := ""
	var stack []*uiFrame
	prev := make([]float64, n)
	lineNo := 0
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF {
			if line != "" {
				return fmt.Errorf("no trailing newline: %q would be dropped", line)
			}
			break
		}
		if err != nil {
			return err
		}
		lineNo++
		line = line[:len(line)-1]
		switch {
		case line == "[events]" || line == "[functions]":
			section = line
			continue
		case line == "":
			return fmt.Errorf("line %d: blank line", lineNo)
		case section == "[functions]":
			for i := 0; i < len(line); i++ {
				if c := line[i]; c < 0x20 || c >= 0x7f || strings.IndexByte(`"<>&`, c) >= 0 {
					return fmt.Errorf("line %d: name %q holds %q", lineNo, line, c)
				}
			}
			rep.Names = append(rep.Names, line)
			continue
		case section != "[events]":
			return fmt.Errorf("line %d: outside a section", lineNo)
		}
		fields := strings.Split(line, " ")
		if len(fields) != 2+n {
			return fmt.Errorf("line %d %q: %d fields, want %d", lineNo, line, len(fields), 2+n)
		}
		v := make([]float64, len(fields))
		for i, f := range fields {
			x, err := strconv.ParseFloat(f, 64)
			if err != nil || f == "" {
				return fmt.Errorf("line %d: field %d %q not a number", lineNo, i, f)
			}
			v[i] = x
		}
		fn, flag, vals := int(v[0]), v[1], v[2:]
		if rep.Events == 0 {
			for i, x := range vals {
				if x != 0 {
					return fmt.Errorf("first event: metric %d is %v, not 0", i, x)
				}
			}
		}
		if vals[0] < prev[0] {
			return fmt.Errorf("line %d: wt decreases %v -> %v", lineNo, prev[0], vals[0])
		}
		copy(prev, vals)
		rep.Events++
		rep.MaxWT = max(rep.MaxWT, vals[0])
		switch flag {
		case 1:
			stack = append(stack, &uiFrame{fn: fn, start: vals, children: make([]float64, n)})
		case 0:
			if len(stack) == 0 {
				return fmt.Errorf("line %d: end without start", lineNo)
			}
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if c.fn != fn {
				return fmt.Errorf("line %d: end of %d closes call of %d", lineNo, fn, c.fn)
			}
			rep.Ends++
			inc := make([]float64, n)
			exc := make([]float64, n)
			for i := range inc {
				inc[i] = vals[i] - c.start[i]
				exc[i] = inc[i] - c.children[i]
			}
			if inc[0] < 0 {
				return fmt.Errorf("line %d: Invalid range", lineNo)
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				for i := range inc {
					p.children[i] += inc[i]
				}
			}
			outer := true
			for j := len(stack) - 1; j >= 0; j-- {
				if stack[j].fn == fn {
					for i := range exc {
						stack[j].children[i] -= exc[i]
					}
					outer = false
					break
				}
			}
			f := rep.Funcs[fn]
			if f == nil {
				f = &uiFunc{Inc: make([]float64, n), Exc: make([]float64, n)}
				rep.Funcs[fn] = f
			}
			f.Calls++
			if outer {
				for i := range inc {
					f.Inc[i] += inc[i]
					f.Exc[i] += exc[i]
				}
			}
		default:
			return fmt.Errorf("line %d: flag %v", lineNo, flag)
		}
	}
	if len(stack) != 0 {
		return fmt.Errorf("%d calls left open", len(stack))
	}
	for fn := range rep.Funcs {
		if fn < 0 || fn >= len(rep.Names) {
			return fmt.Errorf("function index %d has no name (%d names)", fn, len(rep.Names))
		}
	}
	return nil
}

// byName returns the flat profile keyed by function name.
func (rep *uiReport) byName() map[string]*uiFunc {
	m := map[string]*uiFunc{}
	for fn, f := range rep.Funcs {
		m[rep.Names[fn]] = f
	}
	return m
}
