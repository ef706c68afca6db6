package gotrace

// A min-heap of cursors by the time of their next event, with the same
// choices on equal times as golang.org/x/exp/trace's.

func heapInsert(h []*cursor, c *cursor) []*cursor {
	h = append(h, c)
	heapSiftUp(h, len(h)-1)
	return h
}

func heapUpdate(h []*cursor, i int) {
	if heapSiftUp(h, i) != i {
		return
	}
	heapSiftDown(h, i)
}

// heapTopStays reports whether h[0], its time changed, would stay first:
// no child is earlier (on equal times heapSiftDown leaves it).
func heapTopStays(h []*cursor) bool {
	return (len(h) < 2 || h[0].time <= h[1].time) && (len(h) < 3 || h[0].time <= h[2].time)
}

func heapRemove(h []*cursor, i int) []*cursor {
	for i > 0 {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	h[0], h[len(h)-1] = h[len(h)-1], h[0]
	h = h[:len(h)-1]
	heapSiftDown(h, 0)
	return h
}

func heapSiftUp(h []*cursor, i int) int {
	for i > 0 && h[(i-1)/2].time > h[i].time {
		h[(i-1)/2], h[i] = h[i], h[(i-1)/2]
		i = (i - 1) / 2
	}
	return i
}

func heapSiftDown(h []*cursor, i int) int {
	for {
		m := 2*i + 1 // the earlier child, the left on equal times
		if m >= len(h) {
			return i
		}
		if r := m + 1; r < len(h) && h[r].time < h[m].time {
			m = r
		}
		if h[m].time >= h[i].time {
			return i
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
