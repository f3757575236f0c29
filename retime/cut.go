package retime

// flowGraph is a directed graph with integer capacities for a minimum s-t
// cut, solved with Dinic's algorithm (blocking flows along BFS levels).
// The cuts here are small (a few thousand registers at most) on graphs of
// up to a few hundred thousand nodes, where Dinic needs few phases.
type flowGraph struct {
	head  []int32 // first edge of each node, -1 for none
	next  []int32
	to    []int32
	cap   []int64
	level []int32
	iter  []int32
}

// inf is a capacity no cut may cross.
const inf = int64(1) << 40

func newFlowGraph(nodes int) *flowGraph {
	g := &flowGraph{head: make([]int32, nodes)}
	for i := range g.head {
		g.head[i] = -1
	}
	return g
}

func (g *flowGraph) addNode() int32 {
	g.head = append(g.head, -1)
	return int32(len(g.head) - 1)
}

// edge adds u→v with capacity c and its residual v→u.
func (g *flowGraph) edge(u, v int32, c int64) {
	g.to = append(g.to, v, u)
	g.cap = append(g.cap, c, 0)
	g.next = append(g.next, g.head[u], g.head[v])
	e := int32(len(g.to) - 2)
	g.head[u], g.head[v] = e, e+1
}

func (g *flowGraph) bfs(s, t int32) bool {
	g.level = fill(g.level, len(g.head), -1)
	g.level[s] = 0
	q := []int32{s}
	for len(q) > 0 {
		u := q[0]
		q = q[1:]
		for e := g.head[u]; e >= 0; e = g.next[e] {
			if v := g.to[e]; g.cap[e] > 0 && g.level[v] < 0 {
				g.level[v] = g.level[u] + 1
				q = append(q, v)
			}
		}
	}
	return g.level[t] >= 0
}

// push sends up to f units from u to t along level-increasing edges,
// iteratively (graphs are too deep for recursion).
func (g *flowGraph) push(s, t int32) int64 {
	type frame struct{ node, edge int32 }
	var total int64
	for {
		path := []frame{}
		u := s
		for u != t {
			advanced := false
			for ; g.iter[u] >= 0; g.iter[u] = g.next[g.iter[u]] {
				e := g.iter[u]
				if v := g.to[e]; g.cap[e] > 0 && g.level[v] == g.level[u]+1 {
					path = append(path, frame{u, e})
					u = v
					advanced = true
					break
				}
			}
			if !advanced {
				if u == s {
					return total
				}
				// Dead end: retreat and skip the edge that led here.
				g.level[u] = -1
				last := path[len(path)-1]
				path = path[:len(path)-1]
				u = last.node
				g.iter[u] = g.next[g.iter[u]]
			}
		}
		f := inf
		for _, fr := range path {
			f = min(f, g.cap[fr.edge])
		}
		for _, fr := range path {
			g.cap[fr.edge] -= f
			g.cap[fr.edge^1] += f
		}
		total += f
	}
}

// maxFlow saturates the graph from s to t and returns the flow, which is
// the minimum cut's capacity.
func (g *flowGraph) maxFlow(s, t int32) int64 {
	var flow int64
	for g.bfs(s, t) {
		g.iter = append(g.iter[:0], g.head...)
		flow += g.push(s, t)
	}
	return flow
}

// sourceSide returns, after maxFlow, the largest source side of a minimum
// cut: every node that cannot reach t in the residual graph.
func (g *flowGraph) sourceSide(t int32) []bool {
	reach := make([]bool, len(g.head)) // reaches t
	reach[t] = true
	q := []int32{t}
	// Walk residual edges backwards: u reaches t if u→v has capacity and v
	// reaches t. The residual of e (u→v) is cap[e]; it is stored at e, and
	// e^1 is v→u, so from v we look at the edges e^1 out of v.
	for len(q) > 0 {
		v := q[0]
		q = q[1:]
		for e := g.head[v]; e >= 0; e = g.next[e] {
			u := g.to[e]
			if !reach[u] && g.cap[e^1] > 0 {
				reach[u] = true
				q = append(q, u)
			}
		}
	}
	side := make([]bool, len(g.head))
	for i := range side {
		side[i] = !reach[i]
	}
	return side
}

func fill(s []int32, n int, v int32) []int32 {
	if cap(s) < n {
		s = make([]int32, n)
	}
	s = s[:n]
	for i := range s {
		s[i] = v
	}
	return s
}
