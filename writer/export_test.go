package writer

// ZstdOptionsAt gives the benchmarks of package writer_test the encoder
// options the writer would use at another zstd level.
var ZstdOptionsAt = zstdOptionsAt

// OwnedStacks counts the threads of w's last file that hold a stack
// buffer of their own.
func OwnedStacks(w *Writer) int {
	n := 0
	w.eachThread(func(t *Thread) {
		if t != nil && t.owned() {
			n++
		}
	})
	for _, t := range w.spare {
		if t.owned() {
			n++
		}
	}
	return n
}
