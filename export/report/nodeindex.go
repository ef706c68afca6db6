package report

// nodeIndex finds a call-tree node by its parent and frame. It keeps only
// node numbers, in an open-addressed table whose keys are read back from
// the nodes themselves: 4 to 8 bytes a node where a map from (parent,
// frame) to node takes several times that, and a hostile file's tree can
// have a node per frame of a million-frame table.
type nodeIndex struct {
	slots []int32 // node+1, 0 for empty; len is a power of two
	n     int
}

// hashNode mixes parent and frame into a slot number (a 64-bit
// multiplicative hash; the high bits are the best mixed).
func hashNode(parent, frame int32) uint64 {
	return (uint64(uint32(parent))<<32 | uint64(uint32(frame))) * 0x9E3779B97F4A7C15
}

// find returns the node of frame under parent in nodes, or -1 and the
// slot where it would go.
func (x *nodeIndex) find(nodes []Node, parent, frame int32) (node int32, slot int) {
	mask := len(x.slots) - 1
	for i := int(hashNode(parent, frame) >> 32 & uint64(mask)); ; i = (i + 1) & mask {
		s := x.slots[i]
		if s == 0 {
			return -1, i
		}
		if nd := &nodes[s-1]; nd.Parent == parent && nd.Frame == frame {
			return s - 1, i
		}
	}
}

// add records node, which is nodes[node], at slot from find, growing the
// table past three quarters full.
func (x *nodeIndex) add(nodes []Node, node int32, slot int) {
	x.slots[slot] = node + 1
	x.n++
	if x.n*4 < len(x.slots)*3 {
		return
	}
	old := x.slots
	x.slots = make([]int32, 2*len(old))
	for _, s := range old {
		if s != 0 {
			_, i := x.find(nodes, nodes[s-1].Parent, nodes[s-1].Frame)
			x.slots[i] = s
		}
	}
}
