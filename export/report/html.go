package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/gotachyon/profiler/reader"
)

// The page's HTML, style and script: the style goes where styleMarker
// stands, the script where scriptMarker stands and the data where
// dataMarker stands.
var (
	//go:embed report.html
	page string
	//go:embed report.css
	style string
	//go:embed report.js
	script string
	// The page of a profile with labels adds these: labelsScript runs
	// after script, through its API (see labels.js).
	//go:embed labels.css
	labelsStyle string
	//go:embed labels.js
	labelsScript string
	// The page of a profile with a leaks view (leaks.go) adds these,
	// which run after script and labelsScript.
	//go:embed leaks.css
	leaksStyle string
	//go:embed leaks.js
	leaksScript string
	// urlScript keeps the view in the URL's fragment and sets it from
	// there; it runs last, through the API of script and labelsScript.
	//go:embed urlstate.js
	urlScript string
)

const (
	dataMarker   = "/*TACHYON_DATA*/"
	styleMarker  = "/*TACHYON_STYLE*/"
	scriptMarker = "/*TACHYON_SCRIPT*/"
)

// Write aggregates f and writes the HTML report to w.
func Write(w io.Writer, f *reader.File, opt Options) error {
	p, err := Aggregate(f, opt)
	if err != nil {
		return err
	}
	return p.WriteHTML(w)
}

// WriteHTML writes the report page for p to w: the call tree is cut to
// Options.MaxNodes nodes, and further until the page fits in
// Options.MaxBytes.
func (p *Profile) WriteHTML(w io.Writer) error {
	data, err := p.documentJSON()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	head, rest, ok1 := strings.Cut(page, styleMarker)
	mid, rest, ok2 := strings.Cut(rest, dataMarker)
	mid2, tail, ok3 := strings.Cut(rest, scriptMarker)
	if !ok1 || !ok2 || !ok3 {
		return fmt.Errorf("report: template lacks a marker")
	}
	bw := bufio.NewWriter(w)
	labels := p.Labelled()
	bw.WriteString(head)
	bw.WriteString(style)
	if labels {
		bw.WriteString(labelsStyle)
	}
	if p.Leaks != nil {
		bw.WriteString(leaksStyle)
	}
	bw.WriteString(mid)
	bw.Write(data) // json.Marshal escapes <, > and &, so no "</script>" can occur
	bw.WriteString(mid2)
	bw.WriteString(script)
	if labels {
		bw.WriteString(labelsScript)
	}
	if p.Leaks != nil {
		bw.WriteString(leaksScript)
	}
	bw.WriteString(urlScript)
	bw.WriteString(tail)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// documentJSON returns the page's data: the document with the most call
// tree nodes (up to Options.MaxNodes) that fits in Options.MaxBytes with
// the page, halving the nodes until it does.
func (p *Profile) documentJSON() ([]byte, error) {
	order := p.nodeOrder()
	budget := p.Options.MaxBytes - len(page) - len(style) - len(script) - len(urlScript)
	if p.Labelled() {
		budget -= len(labelsStyle) + len(labelsScript)
	}
	if p.Leaks != nil {
		budget -= len(leaksStyle) + len(leaksScript)
	}
	keep := min(p.Options.MaxNodes, len(p.Nodes))
	for {
		data, err := json.Marshal(p.document(order[:max(keep, 1)]))
		if err != nil || len(data) <= budget || keep <= 1 {
			return data, err
		}
		keep /= 2
	}
}
