package nytprof

// callNode is a node of the call tree (by sub path) used for SUB_RETURN.
type callNode struct {
	sub              int32
	incl, excl       uint64
	firstChild, next int32
	lastChild        int32
}

// callTree is the call tree being built: node 0 is the virtual root, and a
// node's children are linked from firstChild through next.
type callTree struct {
	nodes []callNode
	idx   map[treeEdge]int32 // child node by parent and sub
}

// treeEdge identifies a node of the call tree: a sub called from a parent
// node.
type treeEdge struct {
	parent, sub int32
}

// newCallTree returns a tree of the root alone.
func newCallTree() *callTree {
	return &callTree{
		nodes: []callNode{{sub: -1, firstChild: -1, next: -1, lastChild: -1}},
		idx:   map[treeEdge]int32{},
	}
}

// child returns the node of sub called from parent, appending it to
// parent's children when new.
func (t *callTree) child(parent, sub int32) int32 {
	k := treeEdge{parent, sub}
	if n, ok := t.idx[k]; ok {
		return n
	}
	n := int32(len(t.nodes))
	t.nodes = append(t.nodes, callNode{sub: sub, firstChild: -1, next: -1, lastChild: -1})
	p := &t.nodes[parent]
	if p.lastChild < 0 {
		p.firstChild = n
	} else {
		t.nodes[p.lastChild].next = n
	}
	p.lastChild = n
	t.idx[k] = n
	return n
}
