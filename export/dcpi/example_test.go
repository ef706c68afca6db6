package dcpi_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/gotachyon/profiler/export/dcpi"
)

// A profile of two sampled addresses: the header, then one chunk per
// address and the footer.
func ExampleWriteCounts() {
	h := dcpi.Header{
		Image: "20250101120000588c74", Epoch: time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC),
		Platform: "gohost", Event: "cycles", Period: dcpi.Period(3000, 100),
		TextStart: 0x401000, TextSize: 940977, CPUSpeed: 3000,
	}
	var b bytes.Buffer
	st, _ := dcpi.WriteCounts(&b, h, map[uint64]uint64{0xe53b7: 4, 0xe53c4: 29})
	head, _, _ := strings.Cut(b.String(), "samples")
	fmt.Print(head)
	fmt.Println(st.Addresses, "addresses,", st.Samples, "samples,", b.Len(), "bytes")
	// Output:
	// version pdb-0.07
	// image 20250101120000588c74
	// epoch 2501011200
	// platform gohost
	// event cycles
	// period 30000000
	// tstart 401000
	// tsize 940977
	// cpuspeed 3000
	// 2 addresses, 33 samples, 188 bytes
}
