package walker

import (
	"fmt"

	"github.com/chaindata/harness/schemas"
)

// coverage tracks which enum values and oneof branches generated data has
// produced, so that a short run of records can be steered to produce every
// one of them at least once.
type coverage struct {
	seen  map[string]bool
	reach map[*schemas.Node]map[string]bool // memo: keys reachable below a node
}

func newCoverage() *coverage {
	return &coverage{seen: map[string]bool{}, reach: map[*schemas.Node]map[string]bool{}}
}

func enumKey(n *schemas.Node, v any) string {
	name := n.Name
	if name == "" {
		name = n.File + "#" + n.Pointer
	}
	return fmt.Sprintf("enum:%s:%v", name, v)
}

func branchKey(n *schemas.Node, branch string) string {
	return "oneof:" + n.Name + ":" + branch
}

// reachable returns every coverage key the walker can produce below n.
func (cv *coverage) reachable(n *schemas.Node) map[string]bool {
	if r, ok := cv.reach[n]; ok {
		return r
	}
	out := map[string]bool{}
	cv.reach[n] = out // the schemas have no cycles; this only saves work
	add := func(m map[string]bool) {
		for k := range m {
			out[k] = true
		}
	}
	switch {
	case n.Ref != nil:
		add(cv.reachable(n.Ref))
	case n.NullableTarget() != nil:
		add(cv.reachable(n.NullableTarget()))
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		// An enum narrowed by the other branches: only values they allow.
		base := n.AllOf[0].Resolve()
		probe := &Walker{patterns: nil}
		for _, e := range base.Enum {
			v := plainValue(e)
			ok := true
			for _, s := range n.AllOf[1:] {
				if !probe.satisfies(s, &v) {
					ok = false
				}
			}
			if ok {
				out[enumKey(base, e)] = true
			}
		}
	case len(n.AnyOf) > 0 && len(n.Types) == 0:
		add(cv.reachable(n.AnyOf[0]))
	case len(n.Enum) > 0:
		for _, e := range n.Enum {
			out[enumKey(n, e)] = true
		}
	case n.IsOpaque():
	default:
		group := map[string]bool{}
		for _, b := range n.ExclusiveGroup() {
			group[b] = true
			if !n.Property(b).IsOpaque() {
				out[branchKey(n, b)] = true
			}
		}
		for _, p := range n.Properties {
			if p.Schema.IsOpaque() {
				continue
			}
			add(cv.reachable(p.Schema))
		}
		if n.Items != nil {
			add(cv.reachable(n.Items))
		}
	}
	return out
}

// potential counts the keys reachable below n that have not been produced.
func (cv *coverage) potential(n *schemas.Node) int {
	count := 0
	for k := range cv.reachable(n) {
		if !cv.seen[k] {
			count++
		}
	}
	return count
}

// missing returns the keys reachable below n that have not been produced.
func (cv *coverage) missing(n *schemas.Node) []string {
	var out []string
	for k := range cv.reachable(n) {
		if !cv.seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// scan marks the keys a generated value actually holds.
func (cv *coverage) scan(n *schemas.Node, v *Value) {
	for n.Ref != nil {
		n = n.Ref
	}
	if v.kind == kNull {
		return
	}
	switch {
	case n.NullableTarget() != nil:
		cv.scan(n.NullableTarget(), v)
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		cv.scan(n.AllOf[0], v)
	case len(n.AnyOf) > 0 && len(n.Types) == 0:
		cv.scan(n.AnyOf[0], v)
	case len(n.Enum) > 0:
		if v.kind == kString {
			cv.seen[enumKey(n, v.text)] = true
		}
	case v.kind == kObject:
		for _, b := range n.ExclusiveGroup() {
			if _, ok := v.get(b); ok {
				cv.seen[branchKey(n, b)] = true
			}
		}
		for i := range v.obj {
			if ps := n.Property(v.obj[i].name); ps != nil {
				cv.scan(ps, &v.obj[i].val)
			}
		}
	case v.kind == kArray && n.Items != nil:
		for i := range v.obj {
			cv.scan(n.Items, &v.obj[i].val)
		}
	}
}
