package walker

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/schemas"
)

// Walker walks schema definitions and makes values for them. It carries
// what it needs while it builds one value, and the plans it worked out for
// the nodes it met, so that the next value is made faster. A Walker is not
// safe for concurrent use: make one per goroutine.
type Walker struct {
	g *random.Stream
	u *Universe
	// cov, when set, steers every choice towards enum values and oneof
	// branches not yet produced, and includes every optional property.
	cov *coverage
	// optional is the chance that an optional property is included.
	optional float64
	// now is the time values are made around: the time of the block a
	// transaction is in.
	now      time.Time
	depth    int
	patterns map[string]*regexp.Regexp
	nodes    map[*schemas.Node]*nodePlan   // memo of how to make a node's values
	objects  map[*schemas.Node]*objectPlan // memo of what an object node needs
	commons  map[*schemas.Node][]any       // memo of an enum's common values
	// building holds, per object being built (innermost last), the
	// fields made so far; the finished object's fields are copied into
	// the arena at their final size.
	building [][]field
	arena    arena

	// edge, when set, steers every choice towards the edges no record
	// holds yet (SteerEdges); field is then the label of the field whose
	// value is being made, avoid the classes a repair forbids, and used
	// the classes chosen since a repair last looked.
	edge  *EdgeSteer
	field string
	avoid map[edges.Class]bool
	used  []edges.Class
	reuse bool // while a repair flips a rule: boundaries held before may be chosen again
}

// New returns a walker drawing from g, whose identifier formats name the
// entities of u and whose times are around u.Now.
func New(g *random.Stream, u *Universe) *Walker {
	return &Walker{g: g, u: u, optional: 0.6, now: u.Now,
		patterns: map[string]*regexp.Regexp{}, nodes: map[*schemas.Node]*nodePlan{},
		objects: map[*schemas.Node]*objectPlan{},
		commons: map[*schemas.Node][]any{}}
}

// Start readies the walker for a new value tree: the memory of the values
// made before is reused (they must not be used after), the stream starts
// again at seed, and values are made around now.
func (c *Walker) Start(seed int64, now time.Time) {
	c.arena.reset()
	c.g.Reseed(seed)
	c.now = now
}

// Stream returns the stream the walker draws from.
func (c *Walker) Stream() *random.Stream { return c.g }

// Cover makes the walker steer every choice towards the enum values and
// oneof branches it has not produced yet, and include every optional
// property: a short run of values then holds every one of them.
func (c *Walker) Cover() { c.cov = newCoverage() }

// Covering reports whether Cover was called.
func (c *Walker) Covering() bool { return c.cov != nil }

// Missing returns, when covering, the enum values and branches reachable
// below n that no value has held yet.
func (c *Walker) Missing(n *schemas.Node) []string {
	if c.cov == nil {
		return nil
	}
	return c.cov.missing(n)
}

// Scan marks, when covering, the enum values and branches v (a value of n)
// holds as produced.
func (c *Walker) Scan(n *schemas.Node, v *Value) {
	if c.cov != nil {
		c.cov.scan(n, v)
	}
}

// Object makes an object for n. branch, when not empty, names the branch
// of the object's oneof group to take.
func (c *Walker) Object(n *schemas.Node, branch string) (Value, error) {
	return c.genObject(n, branch)
}

// arena hands out the fields of objects and the items of arrays from a few
// large blocks, reused from one transaction to the next: a transaction's
// value tree is dropped once it is encoded, so its memory need not go
// through the garbage collector. Blocks are only reused after reset.
type arena struct {
	fields []field
	values []Value
}

// reset makes the arena's memory free for the next value tree. Values made
// before must not be used after it.
func (a *arena) reset() {
	a.fields = a.fields[:0]
	a.values = a.values[:0]
}

// fieldSlice returns a slice of n fields with room for one more (an object
// often gains one field after it is built: a transaction's command its block
// height); appending beyond that copies it out of the arena rather than
// overwrite a neighbour.
func (a *arena) fieldSlice(n int) []field {
	size := n + 1
	if len(a.fields)+size > cap(a.fields) {
		a.fields = make([]field, 0, max(2*cap(a.fields), size, 256))
	}
	lo := len(a.fields)
	a.fields = a.fields[:lo+size]
	return a.fields[lo : lo+n : lo+size]
}

// valueSlice returns a slice of n values, length 0 and capacity n.
func (a *arena) valueSlice(n int) []Value {
	if len(a.values)+n > cap(a.values) {
		a.values = make([]Value, 0, max(2*cap(a.values), n, 64))
	}
	lo := len(a.values)
	a.values = a.values[:lo+n]
	return a.values[lo : lo : lo+n]
}

// objectPlan is what building an object of a node needs, worked out once:
// its oneof group, the branches of known shape, and how each property is
// chosen.
type objectPlan struct {
	group []string
	known []string // the group's branches that are not opaque
	props []propertyPlan
	fixup func(c *Walker, v *Value)
}

type propertyPlan struct {
	name     string
	schema   *schemas.Node
	inGroup  bool
	required bool
	opaque   bool
	// chance is how often the property is included when optional.
	chance float64
}

// objectPlanOf returns the node's object plan, made on first use.
func (c *Walker) objectPlanOf(n *schemas.Node) *objectPlan {
	if p, ok := c.objects[n]; ok {
		return p
	}
	p := &objectPlan{group: n.ExclusiveGroup(), fixup: fixups[n.Name]}
	for _, b := range p.group {
		if !n.Property(b).IsOpaque() {
			p.known = append(p.known, b)
		}
	}
	for _, prop := range n.Properties {
		chance, ok := optionalChance[n.Name+"."+prop.Name]
		if !ok {
			chance = c.optional
		}
		p.props = append(p.props, propertyPlan{
			name: prop.Name, schema: prop.Schema,
			inGroup:  contains(p.group, prop.Name),
			required: n.IsRequired(prop.Name),
			opaque:   prop.Schema.IsOpaque(),
			chance:   chance,
		})
	}
	c.objects[n] = p
	return p
}

// Instance returns a JSON instance of the named schema definition that
// validates against it, made deterministically from seed.
func Instance(name string, seed int64) ([]byte, error) {
	n, err := schemas.Lookup(name)
	if err != nil {
		return nil, err
	}
	g := random.New(seed)
	c := New(g, defaultUniverse(g))
	v, err := c.gen(n)
	if err != nil {
		return nil, fmt.Errorf("generate %s: %w", name, err)
	}
	return v.appendJSON(nil), nil
}

// gen makes a value for node n.
func (c *Walker) gen(n *schemas.Node) (Value, error) {
	p := c.nodePlanOf(n)
	if c.edge != nil {
		if v, ok, err := c.edgeGen(p); ok {
			return v, err
		}
	}
	switch p.kind {
	case nodeDelegate:
		return c.gen(p.target)
	case nodeAllOf:
		return c.genAllOf(p.node)
	case nodeConst:
		return p.constant, nil
	case nodeEnum:
		return plainValue(c.chooseEnum(p.node)), nil
	case nodeOpaque:
		return object(), nil
	case nodeObject:
		return c.genObjectByPlan(p.node, p.object, "")
	case nodeArray:
		return c.genArray(p.node)
	case nodeFormat:
		// The formats make values that match their patterns; the
		// package's tests validate every generated value, so the hot
		// path does not.
		return p.format(c, p.node), nil
	case nodeInteger:
		return num(c.intIn(p.node, 0, 1000)), nil
	case nodeNumber:
		return c.float(p.node, 0, 1), nil
	case nodeString:
		return str(fitLength(c.g.Faker().Word(), p.node)), nil
	case nodeBool:
		return boolean(c.g.Chance(0.5)), nil
	case nodeAny:
		// Any JSON value: a short string or a small number.
		if c.g.Chance(0.5) {
			return num(c.g.Between(0, 1000)), nil
		}
		return str(c.g.Faker().Word()), nil
	}
	return Value{}, p.err
}

// nodeKind is how gen makes a value for a node.
type nodeKind uint8

const (
	nodeError    nodeKind = iota // no value can be made: nodePlan.err says why
	nodeDelegate                 // make a value for nodePlan.target
	nodeAllOf
	nodeConst
	nodeEnum
	nodeOpaque
	nodeObject
	nodeArray
	nodeFormat // a scalar made by its format's function
	nodeInteger
	nodeNumber
	nodeString
	nodeBool
	nodeAny
)

// nodePlan is how gen makes a value for a node, worked out once per node:
// the node's reference chain followed and its keywords read.
type nodePlan struct {
	kind     nodeKind
	node     *schemas.Node // the node at the end of the reference chain
	target   *schemas.Node // nodeDelegate
	constant Value         // nodeConst
	format   formatFunc    // nodeFormat
	object   *objectPlan   // nodeObject
	err      error         // nodeError
}

// nodePlanOf returns the node's plan, made on first use.
func (c *Walker) nodePlanOf(n *schemas.Node) *nodePlan {
	if p, ok := c.nodes[n]; ok {
		return p
	}
	p := planNode(n)
	if p.kind == nodeObject {
		p.object = c.objectPlanOf(p.node)
	}
	c.nodes[n] = p
	return p
}

func planNode(n *schemas.Node) *nodePlan {
	for n.Ref != nil {
		n = n.Ref
	}
	p := &nodePlan{node: n}
	if t := n.NullableTarget(); t != nil {
		p.kind, p.target = nodeDelegate, t
		return p
	}
	switch {
	case len(n.AnyOf) > 0 && len(n.Types) == 0:
		p.kind, p.target = nodeDelegate, n.AnyOf[0]
		return p
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		p.kind = nodeAllOf
		return p
	case n.HasConst:
		p.kind, p.constant = nodeConst, plainValue(n.Const)
		return p
	case len(n.Enum) > 0:
		p.kind = nodeEnum
		return p
	case n.IsOpaque():
		p.kind = nodeOpaque
		return p
	}
	typ := ""
	for _, t := range n.Types {
		if t != "null" {
			typ = t
			break
		}
	}
	switch typ {
	case "object":
		p.kind = nodeObject
	case "array":
		p.kind = nodeArray
	case "string", "integer", "number":
		switch f, ok := formats[n.Format]; {
		case ok:
			p.kind, p.format = nodeFormat, f
		case typ == "integer":
			p.kind = nodeInteger
		case typ == "number":
			p.kind = nodeNumber
		case n.Pattern != "":
			p.err = fmt.Errorf("%s#%s: no generator for format %q (pattern %s)", n.File, n.Pointer, n.Format, n.Pattern)
		default:
			p.kind = nodeString
		}
	case "boolean":
		p.kind = nodeBool
	case "":
		p.kind = nodeAny
	default:
		p.err = fmt.Errorf("%s#%s: cannot generate type %q", n.File, n.Pointer, typ)
	}
	return p
}

// genAllOf makes a value for the first branch that also passes the others,
// such as an enum with one value excluded.
func (c *Walker) genAllOf(n *schemas.Node) (Value, error) {
	cov, edge := c.cov, c.edge
	defer func() { c.cov, c.edge = cov, edge }()
	for try := 0; try < 32; try++ {
		if try > 0 {
			// Coverage may keep steering to the excluded value; choose
			// freely after a miss.
			c.cov, c.edge = nil, nil
		}
		v, err := c.gen(n.AllOf[0])
		if err != nil {
			return Value{}, err
		}
		if c.satisfies(n, &v) {
			return v, nil
		}
	}
	return Value{}, fmt.Errorf("%s#%s: no value satisfies allOf after 32 tries", n.File, n.Pointer)
}

func (c *Walker) genArray(n *schemas.Node) (Value, error) {
	lo, hi := 1, 3
	if c.depth > 4 {
		hi = 2
	}
	if n.MinItems != nil && *n.MinItems > lo {
		lo = *n.MinItems
	}
	if n.MaxItems != nil && *n.MaxItems < hi {
		hi = *n.MaxItems
	}
	count := int(c.g.Between(int64(lo), int64(hi)))
	if c.edge != nil {
		empty := edges.Key{Class: edges.EmptyArray, Field: c.field}
		switch {
		case (n.MinItems == nil || *n.MinItems == 0) && c.allowed(edges.EmptyArray) && c.edge.wanted(empty):
			c.edge.pending[empty] = true
			c.used = append(c.used, edges.EmptyArray)
			count = 0
		case n.Items != nil && c.edge.potential(n.Items, c.field+"[]") > 0:
			count = max(hi, 1)
		}
		field := c.field
		c.field += "[]"
		defer func() { c.field = field }()
	}
	items := c.arena.fieldSlice(count)[:0]
	c.depth++
	defer func() { c.depth-- }()
	for i := 0; i < count; i++ {
		v, err := c.gen(n.Items)
		if err != nil {
			return Value{}, err
		}
		items = append(items, field{val: v})
	}
	return Value{kind: kArray, obj: items}, nil
}

// genObject makes an object for n. forced, when not empty, names the branch
// of the object's oneof group to take.
func (c *Walker) genObject(n *schemas.Node, forced string) (Value, error) {
	return c.genObjectByPlan(n, c.objectPlanOf(n), forced)
}

func (c *Walker) genObjectByPlan(n *schemas.Node, plan *objectPlan, forced string) (Value, error) {
	chosen := forced
	obj := ""
	if c.edge != nil {
		obj = objectLabel(n, c.field)
		defer func(field string) { c.field = field }(c.field)
	}
	switch {
	case chosen != "" || len(plan.group) == 0:
	case c.edge != nil:
		chosen = c.chooseEdgeBranch(n, plan, obj)
	default:
		chosen = c.chooseBranch(n, plan)
	}
	c.depth++
	defer func() { c.depth-- }()
	// The fields are gathered on a stack of buffers, one per object being
	// built, and copied into the arena once their number is known.
	level := len(c.building)
	if level == cap(c.building) {
		c.building = append(c.building, nil)
	}
	c.building = c.building[:level+1]
	fields := c.building[level][:0]
	defer func() { c.building = c.building[:level] }()
	for i := range plan.props {
		p := &plan.props[i]
		if c.edge != nil {
			c.field = obj + "." + p.name
		}
		switch {
		case p.inGroup:
			if p.name != chosen {
				continue
			}
		case p.required:
		case c.edge != nil:
			if !c.includeOptional(p, c.field) {
				continue
			}
		case c.cov != nil:
		case !c.g.Chance(p.chance):
			continue
		}
		if p.opaque && !p.required && p.name != forced && (c.edge == nil || p.name != chosen) {
			continue
		}
		pv, err := c.gen(p.schema)
		if err != nil {
			return Value{}, err
		}
		fields = append(fields, field{name: p.name, val: pv})
	}
	c.building[level] = fields
	// The object is finished in the arena: repair and the fixups take its
	// address, which would otherwise move it to the heap.
	v := &c.arena.valueSlice(1)[:1][0]
	*v = Value{kind: kObject, obj: c.arena.fieldSlice(len(fields))}
	copy(v.obj, fields)
	clear(fields) // no stale pointers kept alive in the buffer
	if c.edge != nil {
		c.field = obj
	}
	if err := c.repair(n, v); err != nil {
		if c.edge == nil {
			return Value{}, err
		}
		// The boundaries chosen break a rule no repair mends: the object
		// is made again with typical values.
		edge := c.edge
		c.edge = nil
		defer func() { c.edge = edge }()
		return c.genObjectByPlan(n, plan, chosen)
	}
	if plan.fixup != nil && (c.edge == nil || edgeFixups[n.Name]) {
		plan.fixup(c, v)
	}
	return *v, nil
}

// repair makes the object pass its if/then rules. For a broken rule it first
// adds the properties the rule requires, then drops the optional properties
// that trigger the rule, and as a last resort sets the values the rule wants.
func (c *Walker) repair(n *schemas.Node, v *Value) error {
	for round := 0; round < 8; round++ {
		broken := false
		for _, rule := range n.AllOf {
			if rule.If == nil {
				continue
			}
			want := rule.Then
			if !c.satisfies(rule.If, v) {
				want = rule.Else
			}
			if want == nil || c.satisfies(want, v) {
				continue
			}
			broken = true
			if c.edge != nil {
				ok, err := c.repairEdges(n, rule, want, v)
				if err != nil {
					return err
				}
				if ok {
					continue
				}
			}
			if err := c.fixRule(n, rule, want, v); err != nil {
				return err
			}
		}
		if !broken {
			return nil
		}
	}
	return fmt.Errorf("%s#%s: cannot satisfy its if/then rules", n.File, n.Pointer)
}

func (c *Walker) fixRule(n, rule, want *schemas.Node, v *Value) error {
	added := false
	for _, r := range want.Required {
		if _, ok := v.get(r); ok {
			continue
		}
		ps := n.Property(r)
		if ps == nil {
			continue
		}
		field := c.field
		if c.edge != nil {
			c.field = objectLabel(n, field) + "." + r
		}
		pv, err := c.gen(ps)
		c.field = field
		if err != nil {
			return err
		}
		v.set(r, pv)
		added = true
	}
	if added && c.satisfies(want, v) {
		return nil
	}
	if want == rule.Then {
		dropped := false
		for _, r := range rule.If.Required {
			if !n.IsRequired(r) {
				if _, ok := v.get(r); ok {
					v.del(r)
					dropped = true
				}
			}
		}
		if dropped {
			return nil
		}
	}
	for _, p := range want.Properties {
		switch {
		case p.Schema.HasConst:
			v.set(p.Name, plainValue(p.Schema.Const))
		case len(p.Schema.Enum) > 0:
			v.set(p.Name, plainValue(random.Pick(c.g, p.Schema.Enum)))
		}
	}
	return nil
}

// chooseEnum picks an enum value, an unseen one first when covering.
func (c *Walker) chooseEnum(n *schemas.Node) any {
	if c.edge != nil {
		return c.chooseEdgeEnum(n)
	}
	if c.cov != nil {
		var unseen []any
		for _, e := range n.Enum {
			if !c.cov.seen[enumKey(n, e)] {
				unseen = append(unseen, e)
			}
		}
		if len(unseen) > 0 {
			return random.Pick(c.g, unseen)
		}
		return random.Pick(c.g, n.Enum)
	}
	return c.chooseCommon(n)
}

// chooseBranch picks a branch of a oneof group: when covering, the one that
// leads to the most not yet produced; otherwise uniformly among the branches
// whose shape is known.
func (c *Walker) chooseBranch(n *schemas.Node, plan *objectPlan) string {
	known := plan.known
	if len(known) == 0 {
		return random.Pick(c.g, plan.group)
	}
	if c.cov == nil {
		return random.Pick(c.g, known)
	}
	best, bestScore := []string(nil), -1
	for _, b := range known {
		score := c.cov.potential(n.Property(b))
		if !c.cov.seen[branchKey(n, b)] {
			score++
		}
		switch {
		case score > bestScore:
			best, bestScore = []string{b}, score
		case score == bestScore:
			best = append(best, b)
		}
	}
	return random.Pick(c.g, best)
}

// plainValue turns a schema constant (string, bool, int64, float64) into a value.
func plainValue(x any) Value {
	switch t := x.(type) {
	case string:
		return str(t)
	case bool:
		return boolean(t)
	case int64:
		return num(t)
	case float64:
		return numText(strconv.FormatFloat(t, 'f', -1, 64))
	}
	return Value{}
}

// satisfies is a small validator for the keywords the schemas use inside
// rules; the real validation is done by the schemas package.
func (c *Walker) satisfies(n *schemas.Node, v *Value) bool {
	for n.Ref != nil {
		n = n.Ref
	}
	if n.False {
		return false
	}
	if len(n.Types) > 0 && !typeMatches(n.Types, v) {
		return false
	}
	if n.HasConst && !equalPlain(v, n.Const) {
		return false
	}
	if len(n.Enum) > 0 {
		found := false
		for _, e := range n.Enum {
			if equalPlain(v, e) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	if n.Not != nil && c.satisfies(n.Not, v) {
		return false
	}
	if v.kind == kString {
		l := utf8.RuneCountInString(v.text)
		if (n.MinLength != nil && l < *n.MinLength) || (n.MaxLength != nil && l > *n.MaxLength) {
			return false
		}
		if n.Pattern != "" && !c.pattern(n.Pattern).MatchString(v.text) {
			return false
		}
	}
	if v.kind == kArray {
		if (n.MinItems != nil && len(v.obj) < *n.MinItems) || (n.MaxItems != nil && len(v.obj) > *n.MaxItems) {
			return false
		}
	}
	if v.kind == kObject {
		for _, r := range n.Required {
			if _, ok := v.get(r); !ok {
				return false
			}
		}
		for _, p := range n.Properties {
			if pv, ok := v.get(p.Name); ok && !c.satisfies(p.Schema, pv) {
				return false
			}
		}
		if n.PropertyNames != nil {
			for i := range v.obj {
				if name := str(v.obj[i].name); !c.satisfies(n.PropertyNames, &name) {
					return false
				}
			}
		}
		for _, d := range n.Dependencies {
			if _, ok := v.get(d.Name); ok && !c.satisfies(d.Schema, v) {
				return false
			}
		}
	}
	for _, s := range n.AllOf {
		if !c.satisfies(s, v) {
			return false
		}
	}
	if len(n.AnyOf) > 0 {
		ok := false
		for _, s := range n.AnyOf {
			if c.satisfies(s, v) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	if len(n.OneOf) > 0 {
		count := 0
		for _, s := range n.OneOf {
			if c.satisfies(s, v) {
				count++
			}
		}
		if count != 1 {
			return false
		}
	}
	if n.If != nil {
		if c.satisfies(n.If, v) {
			if n.Then != nil && !c.satisfies(n.Then, v) {
				return false
			}
		} else if n.Else != nil && !c.satisfies(n.Else, v) {
			return false
		}
	}
	return true
}

func (c *Walker) pattern(p string) *regexp.Regexp {
	re, ok := c.patterns[p]
	if !ok {
		re = regexp.MustCompile(p)
		c.patterns[p] = re
	}
	return re
}

func typeMatches(types []string, v *Value) bool {
	for _, t := range types {
		switch {
		case t == "null" && v.kind == kNull,
			t == "string" && v.kind == kString,
			t == "boolean" && v.kind == kBool,
			t == "object" && v.kind == kObject,
			t == "array" && v.kind == kArray,
			(t == "number" || t == "integer") && v.kind == kNumber:
			return true
		}
	}
	return false
}

func equalPlain(v *Value, x any) bool {
	switch t := x.(type) {
	case string:
		return v.kind == kString && v.text == t
	case bool:
		return v.kind == kBool && v.b == t
	case int64:
		return v.kind == kNumber && v.text == strconv.FormatInt(t, 10)
	case float64:
		f, err := strconv.ParseFloat(v.text, 64)
		return v.kind == kNumber && err == nil && f == t
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
