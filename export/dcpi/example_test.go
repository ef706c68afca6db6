package dcpi

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A profile of two sampled addresses: the header, then one chunk per
// address and the footer.
func TestWriteCountsExample(t *testing.T) {
	h := profileHeader{
		Image: "20250101120000588c74", Epoch: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC),
		Platform: "gohost", Event: "cycles", Period: period(3000, 100),
		TextStart: 0x401000, TextSize: 940977, CPUSpeed: 3000,
	}
	var b bytes.Buffer
	st, _ := writeCounts(&b, h, map[uint64]uint64{0xe53b7: 4, 0xe53c4: 29})
	head, _, _ := strings.Cut(b.String(), "samples")
	got := head + fmt.Sprintln(st.Addresses, "addresses,", st.Samples, "samples,", b.Len(), "bytes")
	want := `version pdb-0.07
image 20250101120000588c74
epoch 2501011200
platform gohost
event cycles
period 30000000
tstart 401000
tsize 940977
cpuspeed 3000
2 addresses, 33 samples, 188 bytes
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
