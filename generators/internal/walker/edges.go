package walker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/schemas"
)

// Edges: which boundaries of the schemas (edges.Class) a value of a node can
// hold, the values that hold them, and a scan of a finished record for the
// ones it holds. A Walker steered by an EdgeSteer (SteerEdges) makes, record
// after record, the edges no record has held yet: the edge world is a run of
// such records.
//
// Every rule here is read from the schemas: an integer string is a string
// whose pattern is the Uint64 or Int64 definition's; a field's bounds are its
// minimum, maximum and maxLength; a decimal's edges are the candidate values
// its pattern accepts. A field added to the schemas gets its edges without
// code changes.

// The values of the integer classes.
const (
	above2To53 = "9007199254740993"
	uint64Max  = "18446744073709551615"
	int64Max   = "9223372036854775807"
	int64Min   = "-9223372036854775808"
)

// Candidates for the classes of strings with a pattern: the first one the
// pattern accepts is the value of its class.
var (
	manyDigitStrings = []string{
		"123456789012345678901234567890.123456789012345678901234567890",
		"123456789012345678901234567890123456789012345678901234567890",
		"0.000000000000000000000000000001234567890123456789012345678901",
	}
	negativeStrings = []string{
		"-123456789012345678901234567890.123456789012345678901234567890",
		"-0.000000000000000000000000000001234567890123456789012345678901",
	}
	// numbers' values, JSON numbers within every bound the schemas set
	manyDigitNumber = "0.1234567890123456789012345678901234567890"
	negativeNumber  = "-1234567890.12345678901234567890123456789"
)

// nonASCIIText has emoji (astral, one joined by U+200D), Hebrew and Arabic
// (right to left), a combining mark, CJK and Greek.
const nonASCIIText = "Ünïcødé 😀🚀 👩‍👩‍👧 שלום עולם مرحبا بالعالم 中文字符 e\u0301 Ελληνικά"

// longUnit is repeated to make a LongString: it has an emoji, so that a
// UTF-16 length is longer than the code points the schemas count, and no
// right-to-left text, so that a long string is not also NonASCII.
const longUnit = "Long text with an emoji 😀 up to the limit. "

// escapesText holds the quote, the backslash, every control character and
// the two separators JavaScript source cannot hold.
var escapesText = func() string {
	var b strings.Builder
	b.WriteString(`quote " backslash \ controls `)
	for r := rune(0); r < 0x20; r++ {
		b.WriteRune(r)
	}
	b.WriteString(" separators \u2028 \u2029 html <>& end")
	return b.String()
}()

// checkedFormats are the standard formats validators check (the harness's,
// ajv with ajv-formats, Python's jsonschema as tools/check-export runs
// them): a free string of these formats has no edges.
var checkedFormats = map[string]bool{"uri": true, "date-time": true}

// integerPatterns returns the patterns of the Uint64 and Int64 definitions:
// a string with one of them is an integer string.
var integerPatterns = sync.OnceValues(func() (string, string) {
	return schemas.MustLookup("Uint64").Pattern, schemas.MustLookup("Int64").Pattern
})

// leafKind is what kind of scalar a node is, for its edges.
type leafKind uint8

const (
	leafNone leafKind = iota
	leafUint64
	leafInt64
	leafNumber // a JSON integer or number
	leafPatterned
	leafFree
	leafBool
)

// leaf is a scalar node's kind and the classes a value of it can hold, in
// Classes order, with each class's value (for the string and number
// classes).
type leaf struct {
	kind    leafKind
	classes []edges.Class
	values  map[edges.Class]Value
}

// leafOf works out a resolved scalar node's edges.
func leafOf(n *schemas.Node) *leaf {
	u64, i64 := integerPatterns()
	l := &leaf{values: map[edges.Class]Value{}}
	add := func(c edges.Class, v Value) {
		l.classes = append(l.classes, c)
		l.values[c] = v
	}
	if len(n.Enum) > 0 || n.HasConst || len(n.AnyOf) > 0 || len(n.AllOf) > 0 || n.IsOpaque() {
		return l // not a scalar of its own: its edges are its values or branches
	}
	switch {
	case n.HasType("string") && n.Pattern == u64:
		l.kind = leafUint64
		add(edges.Zero, str("0"))
		add(edges.Above2To53, str(above2To53))
		add(edges.Uint64Max, str(uint64Max))
	case n.HasType("string") && n.Pattern == i64:
		l.kind = leafInt64
		add(edges.Zero, str("0"))
		add(edges.Above2To53, str(above2To53))
		add(edges.Int64Max, str(int64Max))
		add(edges.Int64Min, str(int64Min))
	case n.HasType("integer") || n.HasType("number"):
		l.kind = leafNumber
		inRange := func(x float64) bool {
			return (n.Minimum == nil || *n.Minimum <= x) && (n.Maximum == nil || x <= *n.Maximum)
		}
		if (n.Minimum == nil || *n.Minimum < 0) && (n.Maximum == nil || *n.Maximum > 0) {
			add(edges.Zero, numText("0"))
		}
		if n.Minimum != nil {
			add(edges.Minimum, numText(strconv.FormatFloat(*n.Minimum, 'f', -1, 64)))
		}
		if n.Maximum != nil {
			add(edges.Maximum, numText(strconv.FormatFloat(*n.Maximum, 'f', -1, 64)))
		}
		if !n.HasType("integer") {
			if f, _ := strconv.ParseFloat(manyDigitNumber, 64); inRange(f) {
				add(edges.ManyDigits, numText(manyDigitNumber))
			}
			if f, _ := strconv.ParseFloat(negativeNumber, 64); inRange(f) {
				add(edges.Negative, numText(negativeNumber))
			}
		}
	case n.HasType("string") && checkedFormats[n.Format]:
	case n.HasType("string") && n.Pattern != "":
		l.kind = leafPatterned
		re := regexp.MustCompile(n.Pattern)
		fits := func(s string) bool { return re.MatchString(s) && lengthFits(n, s) }
		if fits("") {
			add(edges.EmptyString, str(""))
		}
		if fits("0") {
			add(edges.Zero, str("0"))
		}
		for _, s := range manyDigitStrings {
			if fits(s) {
				add(edges.ManyDigits, str(s))
				break
			}
		}
		for _, s := range negativeStrings {
			if fits(s) {
				add(edges.Negative, str(s))
				break
			}
		}
	case n.HasType("string"):
		l.kind = leafFree
		if lengthFits(n, "") {
			add(edges.EmptyString, str(""))
		}
		add(edges.LongString, str(longText(n)))
		if lengthFits(n, nonASCIIText) {
			add(edges.NonASCII, str(nonASCIIText))
		}
		if lengthFits(n, escapesText) {
			add(edges.Escapes, str(escapesText))
		}
	case n.HasType("boolean"):
		l.kind = leafBool
		add(edges.True, boolean(true))
		add(edges.False, boolean(false))
	}
	return l
}

// lengthFits reports whether s is within the node's length bounds, counted
// in code points as JSON Schema counts them.
func lengthFits(n *schemas.Node, s string) bool {
	c := utf8.RuneCountInString(s)
	return (n.MinLength == nil || c >= *n.MinLength) && (n.MaxLength == nil || c <= *n.MaxLength)
}

// longLength is the length of a LongString of the node, in code points.
func longLength(n *schemas.Node) int {
	if n.MaxLength != nil {
		return *n.MaxLength
	}
	return edges.LongStringRunes
}

// longText returns a string of exactly longLength code points.
func longText(n *schemas.Node) string {
	want := longLength(n)
	var b strings.Builder
	for count := 0; count < want; {
		for _, r := range longUnit {
			if count == want {
				break
			}
			b.WriteRune(r)
			count++
		}
	}
	return b.String()
}

// holds returns the classes among l's that a value holds.
func (l *leaf) holds(n *schemas.Node, v *Value) []edges.Class {
	var out []edges.Class
	has := func(c edges.Class) bool {
		for _, x := range l.classes {
			if x == c {
				return true
			}
		}
		return false
	}
	add := func(c edges.Class, ok bool) {
		if ok && has(c) {
			out = append(out, c)
		}
	}
	switch l.kind {
	case leafUint64, leafInt64:
		if v.kind != kString {
			return nil
		}
		add(edges.Zero, v.text == "0")
		add(edges.Uint64Max, v.text == uint64Max)
		add(edges.Int64Max, v.text == int64Max)
		add(edges.Int64Min, v.text == int64Min)
		add(edges.Above2To53, v.text != uint64Max && v.text != int64Max && aboveTwoTo53(v.text))
	case leafNumber:
		if v.kind != kNumber {
			return nil
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			return nil
		}
		add(edges.Zero, f == 0)
		add(edges.Minimum, n.Minimum != nil && f == *n.Minimum)
		add(edges.Maximum, n.Maximum != nil && f == *n.Maximum)
		add(edges.ManyDigits, digits(v.text) >= edges.ManyDigitsCount)
		add(edges.Negative, f < 0)
	case leafPatterned:
		if v.kind != kString {
			return nil
		}
		add(edges.EmptyString, v.text == "")
		add(edges.Zero, v.text == "0")
		add(edges.ManyDigits, digits(v.text) >= edges.ManyDigitsCount)
		add(edges.Negative, strings.HasPrefix(v.text, "-"))
	case leafFree:
		if v.kind != kString {
			return nil
		}
		add(edges.EmptyString, v.text == "")
		add(edges.LongString, utf8.RuneCountInString(v.text) >= longLength(n))
		add(edges.NonASCII, isNonASCII(v.text))
		add(edges.Escapes, hasEscapes(v.text))
	case leafBool:
		if v.kind != kBool {
			return nil
		}
		add(edges.True, v.b)
		add(edges.False, !v.b)
	}
	return out
}

// aboveTwoTo53 reports whether a digit string is above 2^53.
func aboveTwoTo53(s string) bool {
	u, err := strconv.ParseUint(s, 10, 64)
	return err == nil && u > 1<<53
}

// digits counts the decimal digits of s.
func digits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// isNonASCII reports whether s holds what a NonASCII value holds: a
// character outside the Basic Multilingual Plane and right-to-left text.
func isNonASCII(s string) bool {
	astral, rtl := false, false
	for _, r := range s {
		astral = astral || r > 0xFFFF
		rtl = rtl || (r >= 0x0590 && r <= 0x06FF)
	}
	return astral && rtl
}

// hasEscapes reports whether s holds every character an Escapes value
// holds: the quote, the backslash, every control character U+0000 to
// U+001F, U+2028 and U+2029.
func hasEscapes(s string) bool {
	var controls uint32
	quote, backslash, ls, ps := false, false, false, false
	for _, r := range s {
		switch {
		case r < 0x20:
			controls |= 1 << r
		case r == '"':
			quote = true
		case r == '\\':
			backslash = true
		case r == '\u2028':
			ls = true
		case r == '\u2029':
			ps = true
		}
	}
	return controls == 0xFFFFFFFF && quote && backslash && ls && ps
}

// Labels: where an edge applies. A property of a definition D is
// "D.property"; a property of an object written inline is the label of the
// field holding the object, a dot and the property; an array's elements are
// the array's label and "[]".

func objectLabel(n *schemas.Node, field string) string {
	if n.Name != "" {
		return n.Name
	}
	return field
}

func enumName(n *schemas.Node, field string) string {
	if n.Name != "" {
		return n.Name
	}
	return field
}

// branchName names an anyOf branch: the definition it refers to, or its
// constant.
func branchName(b *schemas.Node, i int) string {
	if b.Ref != nil && b.Ref.Name != "" {
		return b.Ref.Name
	}
	if b.HasConst {
		c, _ := json.Marshal(b.Const)
		return "const " + string(c)
	}
	return strconv.Itoa(i)
}

// isChoice reports whether a node is an anyOf of alternatives (not the
// nullable form) that the walker chooses among.
func isChoice(n *schemas.Node) bool {
	return len(n.AnyOf) > 0 && len(n.Types) == 0 && n.NullableTarget() == nil
}

// EdgeSteer is what a run of edge records knows: the edges held so far, and
// the edges reachable below each node. A Walker steered by it (SteerEdges)
// chooses, at every choice, the edges not held yet. It is not safe for
// concurrent use.
type EdgeSteer struct {
	seen    map[edges.Key]bool
	pending map[edges.Key]bool // chosen in the record being made
	// misses counts the records a key was chosen in but did not end up
	// in (a repair took it out); after maxMisses the steer stops wanting
	// it, so that one edge a rule keeps out does not hold every choice.
	misses map[edges.Key]int
	reach  map[reachID][]edges.Key
	leaves map[*schemas.Node]*leaf
	// potentials memoizes the count of keys not seen below a node, until
	// seen changes.
	potentials map[reachID]int
	groups     map[*schemas.Node][]string // memo of ExclusiveGroup
}

// group returns the node's exclusive group (schemas.Node.ExclusiveGroup).
func (s *EdgeSteer) group(n *schemas.Node) []string {
	g, ok := s.groups[n]
	if !ok {
		g = n.ExclusiveGroup()
		s.groups[n] = g
	}
	return g
}

type reachID struct {
	n     *schemas.Node
	field string
}

// NewEdgeSteer returns a steer that has seen no edge.
func NewEdgeSteer() *EdgeSteer {
	return &EdgeSteer{seen: map[edges.Key]bool{}, pending: map[edges.Key]bool{}, misses: map[edges.Key]int{},
		reach: map[reachID][]edges.Key{}, leaves: map[*schemas.Node]*leaf{}, potentials: map[reachID]int{},
		groups: map[*schemas.Node][]string{}}
}

// Saw records that a record holds k.
func (s *EdgeSteer) Saw(k edges.Key) {
	if !s.seen[k] {
		s.seen[k] = true
		clear(s.potentials)
	}
}

// maxMisses is how many records may miss an edge they chose before the
// steer stops wanting it.
const maxMisses = 8

// Finish ends a record, once what it holds is recorded (Saw): the edges it
// chose but does not hold count a miss.
func (s *EdgeSteer) Finish() {
	for k := range s.pending {
		if !s.seen[k] {
			s.misses[k]++
			if s.misses[k] == maxMisses {
				clear(s.potentials)
			}
		}
	}
	clear(s.pending)
}

// done reports whether the steer no longer wants k: a record holds it, or
// maxMisses records chose it in vain.
func (s *EdgeSteer) done(k edges.Key) bool { return s.seen[k] || s.misses[k] >= maxMisses }

// Missing returns the edges below the definition n that no record holds
// yet, sorted.
func (s *EdgeSteer) Missing(n *schemas.Node) []edges.Key {
	var out []edges.Key
	for _, k := range s.keys(n, "") {
		if !s.seen[k] {
			out = append(out, k)
		}
	}
	return out
}

// Wanted returns the edges below the definition n the steer still steers
// towards: held by no record, and not yet chosen in vain by maxMisses
// records. A run of records is over when it is empty.
func (s *EdgeSteer) Wanted(n *schemas.Node) []edges.Key {
	var out []edges.Key
	for _, k := range s.keys(n, "") {
		if !s.done(k) {
			out = append(out, k)
		}
	}
	return out
}

func (s *EdgeSteer) leafOf(n *schemas.Node) *leaf {
	l, ok := s.leaves[n]
	if !ok {
		l = leafOf(n)
		s.leaves[n] = l
	}
	return l
}

// keys returns the edges reachable below n, a value of the field labelled
// field, sorted and without duplicates.
func (s *EdgeSteer) keys(n *schemas.Node, field string) []edges.Key {
	id := reachID{n, field}
	if ks, ok := s.reach[id]; ok {
		return ks
	}
	set := map[edges.Key]bool{}
	s.collect(n, field, set)
	ks := make([]edges.Key, 0, len(set))
	for k := range set {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].Less(ks[j]) })
	s.reach[id] = ks
	return ks
}

func (s *EdgeSteer) collect(n *schemas.Node, field string, out map[edges.Key]bool) {
	n = n.Resolve()
	add := func(ks []edges.Key) {
		for _, k := range ks {
			out[k] = true
		}
	}
	switch {
	case n.False:
	case n.NullableTarget() != nil:
		out[edges.Key{Class: edges.Null, Field: field}] = true
		add(s.keys(n.NullableTarget(), field))
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		// An enum narrowed by the other branches: only the values they
		// allow.
		base := n.AllOf[0].Resolve()
		probe := &Walker{patterns: map[string]*regexp.Regexp{}}
		for _, e := range base.Enum {
			v := plainValue(e)
			ok := true
			for _, rest := range n.AllOf[1:] {
				ok = ok && probe.satisfies(rest, &v)
			}
			if ok {
				out[edges.Key{Class: edges.Enum, Field: enumName(base, field), Value: fmt.Sprint(e)}] = true
			}
		}
	case isChoice(n):
		group := objectLabel(n, field)
		for i, b := range n.AnyOf {
			out[edges.Key{Class: edges.Branch, Field: group, Value: branchName(b, i)}] = true
			add(s.keys(b, field))
		}
	case n.HasConst:
	case len(n.Enum) > 0:
		for _, e := range n.Enum {
			out[edges.Key{Class: edges.Enum, Field: enumName(n, field), Value: fmt.Sprint(e)}] = true
		}
	case n.IsOpaque():
	case n.HasType("object"):
		obj := objectLabel(n, field)
		group := s.group(n)
		for _, b := range group {
			out[edges.Key{Class: edges.Branch, Field: obj, Value: b}] = true
		}
		for _, p := range n.Properties {
			pl := obj + "." + p.Name
			if !n.IsRequired(p.Name) && !contains(group, p.Name) {
				out[edges.Key{Class: edges.Absent, Field: pl}] = true
				out[edges.Key{Class: edges.Present, Field: pl}] = true
			}
			add(s.keys(p.Schema, pl))
		}
	case n.HasType("array"):
		if n.MinItems == nil || *n.MinItems == 0 {
			out[edges.Key{Class: edges.EmptyArray, Field: field}] = true
		}
		if n.Items != nil {
			add(s.keys(n.Items, field+"[]"))
		}
	default:
		for _, c := range s.leafOf(n).classes {
			out[edges.Key{Class: c, Field: field}] = true
		}
	}
}

// potential counts the edges below n (a value of field) that no record
// holds yet.
func (s *EdgeSteer) potential(n *schemas.Node, field string) int {
	id := reachID{n, field}
	if p, ok := s.potentials[id]; ok {
		return p
	}
	p := 0
	for _, k := range s.keys(n, field) {
		if !s.done(k) {
			p++
		}
	}
	s.potentials[id] = p
	return p
}

// wanted reports whether k is held by no record yet nor chosen in the
// record being made.
func (s *EdgeSteer) wanted(k edges.Key) bool { return !s.done(k) && !s.pending[k] }

// SteerEdges makes the walker choose, at every choice, the edges s has not
// seen: an optional field absent and then present, null, an empty array, an
// enum value, a branch, a scalar's boundaries (edges.Class); the typical
// value once a field's edges are all held. The caller records what each
// finished record holds (EdgeScanner, EdgeSteer.Saw). Fixups that would
// overwrite values for realism are not applied; those that keep identities
// consistent are.
func (c *Walker) SteerEdges(s *EdgeSteer) {
	c.edge = s
	c.cov = nil
}

// edgeGen makes, when steering edges, the value of a node whose choice the
// steer makes (a nullable, an anyOf, a scalar); ok is false for the nodes
// gen makes as usual (objects and arrays steer inside).
func (c *Walker) edgeGen(p *nodePlan) (v Value, ok bool, err error) {
	s, n, field := c.edge, p.node, c.field
	switch {
	case n.NullableTarget() != nil:
		null := edges.Key{Class: edges.Null, Field: field}
		t := n.NullableTarget()
		if c.allowed(edges.Null) && (s.wanted(null) || (s.potential(t, field) == 0 && c.g.Chance(0.3))) {
			s.pending[null] = true
			c.used = append(c.used, edges.Null)
			return Value{}, true, nil
		}
		v, err := c.gen(t)
		return v, true, err
	case isChoice(n):
		group := objectLabel(n, field)
		best, bestScore := -1, -1
		for i, b := range n.AnyOf {
			score := s.potential(b, field)
			if s.wanted(edges.Key{Class: edges.Branch, Field: group, Value: branchName(b, i)}) {
				score++
			}
			if score > bestScore || (score == bestScore && c.g.Chance(0.5)) {
				best, bestScore = i, score
			}
		}
		b := n.AnyOf[best]
		s.pending[edges.Key{Class: edges.Branch, Field: group, Value: branchName(b, best)}] = true
		v, err := c.gen(b)
		return v, true, err
	}
	switch p.kind {
	case nodeFormat, nodeInteger, nodeNumber, nodeString, nodeBool:
	default:
		return Value{}, false, nil
	}
	l := s.leafOf(n)
	for _, cl := range l.classes {
		k := edges.Key{Class: cl, Field: field}
		if (s.wanted(k) || c.reuse) && c.allowed(cl) {
			s.pending[k] = true
			c.used = append(c.used, cl)
			return l.values[cl], true, nil
		}
	}
	if p.kind == nodeBool {
		return boolean(c.g.Chance(0.5)), true, nil
	}
	return Value{}, false, nil
}

// allowed reports whether the value being made may hold class cl: a
// repair forbids the classes that broke a rule (Walker.avoid).
func (c *Walker) allowed(cl edges.Class) bool { return !c.avoid[cl] }

// includeOptional decides, when steering edges, whether an optional
// property of an object goes in: absent if no record has it absent yet,
// then present, then present while edges below it are wanted.
func (c *Walker) includeOptional(p *propertyPlan, field string) bool {
	s := c.edge
	absent := edges.Key{Class: edges.Absent, Field: field}
	present := edges.Key{Class: edges.Present, Field: field}
	switch {
	case s.wanted(absent):
		s.pending[absent] = true
		return false
	case s.wanted(present):
		s.pending[present] = true
		return true
	case s.potential(p.schema, field) > 0:
		return true
	}
	return c.g.Chance(0.5)
}

// chooseEdgeBranch picks, when steering edges, the member of an exclusive
// group (opaque ones too) that leads to the most wanted edges.
func (c *Walker) chooseEdgeBranch(n *schemas.Node, plan *objectPlan, obj string) string {
	s := c.edge
	var best []string
	bestScore := -1
	for _, b := range plan.group {
		score := s.potential(n.Property(b), obj+"."+b)
		if s.wanted(edges.Key{Class: edges.Branch, Field: obj, Value: b}) {
			score++
		}
		switch {
		case score > bestScore:
			best, bestScore = []string{b}, score
		case score == bestScore:
			best = append(best, b)
		}
	}
	chosen := best[c.g.Intn(len(best))]
	s.pending[edges.Key{Class: edges.Branch, Field: obj, Value: chosen}] = true
	return chosen
}

// chooseEdgeEnum picks, when steering edges, an enum value no record holds
// yet, else a common one.
func (c *Walker) chooseEdgeEnum(n *schemas.Node) any {
	name := enumName(n, c.field)
	for _, e := range n.Enum {
		k := edges.Key{Class: edges.Enum, Field: name, Value: fmt.Sprint(e)}
		if c.edge.wanted(k) {
			c.edge.pending[k] = true
			return e
		}
	}
	return c.chooseCommon(n)
}

// edgeFixups are the fixups applied when steering edges: they keep
// identities consistent (the node announced is one of the world's, a
// transfer's owner matches its account type) and overwrite no value a
// boundary could sit in.
var edgeFixups = map[string]bool{"AnnounceNode": true, "NewTransferConfiguration": true}

// repairEdges tries, when steering edges, to mend a broken rule while
// keeping the boundaries the object holds. In order, until the rule holds:
//
//  1. it sets the constants and enum values the rule wants, and deletes the
//     optional properties the rule wants absent (not required);
//  2. it makes again each property the rule constrains otherwise (a
//     length, a pattern) that breaks it, with another boundary, forbidding
//     the classes that broke it;
//  3. it makes again the scalars the rule's condition reads, so that the
//     other branch of the rule applies (a transaction's code other than 0,
//     so that its error may be a long string);
//  4. it makes again the properties of step 2 with typical values.
//
// It reports whether the rule then holds; fixRule takes over when not.
func (c *Walker) repairEdges(n, rule, want *schemas.Node, v *Value) (bool, error) {
	holds := func() bool {
		if c.satisfies(rule.If, v) {
			return rule.Then == nil || c.satisfies(rule.Then, v)
		}
		return rule.Else == nil || c.satisfies(rule.Else, v)
	}
	// A value the rule wants changed or gone may hold a boundary this
	// record chose: changing the condition's side instead keeps it, unless
	// that side holds one too (then a coin decides, so that over records
	// both get their turn).
	changed := false
	for _, p := range want.Properties {
		if cur, ok := v.get(p.Name); ok && !c.satisfies(p.Schema, cur) && c.holdsPending(n, p.Name, v) {
			changed = true
		}
	}
	if want.Not != nil {
		for _, r := range want.Not.Required {
			changed = changed || c.holdsPending(n, r, v)
		}
	}
	if changed && rule.If != nil {
		triggers := false
		for _, r := range rule.If.Required {
			triggers = triggers || c.holdsPending(n, r, v)
		}
		for _, p := range rule.If.Properties {
			triggers = triggers || c.holdsPending(n, p.Name, v)
		}
		if !triggers || c.g.Chance(0.5) {
			if c.dropTriggers(n, rule, v, holds) {
				return true, nil
			}
			if ok, err := c.remake(n, rule.If.Properties, v, false, true, holds); ok || err != nil {
				return ok, err
			}
		}
	}
	for _, p := range want.Properties {
		switch {
		case p.Schema.HasConst:
			v.set(p.Name, plainValue(p.Schema.Const))
		case len(p.Schema.Enum) > 0:
			if cur, ok := v.get(p.Name); !ok || !c.satisfies(p.Schema, cur) {
				v.set(p.Name, plainValue(p.Schema.Enum[c.g.Intn(len(p.Schema.Enum))]))
			}
		}
	}
	if want.Not != nil && len(want.Not.Required) > 0 && len(want.Not.Properties) == 0 {
		for _, r := range want.Not.Required {
			if !n.IsRequired(r) {
				v.del(r)
			}
		}
	}
	if holds() {
		return true, nil
	}
	if ok, err := c.remake(n, want.Properties, v, true, false, holds); ok || err != nil {
		return ok, err
	}
	if rule.If != nil {
		if ok, err := c.remake(n, rule.If.Properties, v, false, true, holds); ok || err != nil {
			return ok, err
		}
	}
	return c.remake(n, want.Properties, v, false, false, holds)
}

// holdsPending reports whether the object's property name holds an edge
// the record being made chose.
func (c *Walker) holdsPending(n *schemas.Node, name string, v *Value) bool {
	pv, ok := v.get(name)
	ps := n.Property(name)
	if !ok || ps == nil {
		return false
	}
	found := false
	sc := &scanner{steer: c.edge, probe: c, found: func(k edges.Key, _ string) {
		found = found || c.edge.pending[k]
	}}
	obj := objectLabel(n, c.field)
	sc.found(edges.Key{Class: edges.Present, Field: obj + "." + name}, "")
	sc.scan(ps, obj+"."+name, pv, "")
	return found
}

// dropTriggers deletes the optional properties the rule's condition
// requires, and reports whether the rule then holds; when not, it puts them
// back.
func (c *Walker) dropTriggers(n, rule *schemas.Node, v *Value, holds func() bool) bool {
	if rule.If == nil {
		return false
	}
	saved := append([]field(nil), v.obj...)
	for _, r := range rule.If.Required {
		if !n.IsRequired(r) {
			v.del(r)
		}
	}
	if holds() {
		return true
	}
	v.obj = append(v.obj[:0], saved...)
	return false
}

// remake makes again, one after the other, each present scalar, array or
// nullable property named in props (those constrained by a constant or an
// enum excepted) that breaks its schema there (every one, with flip),
// until done holds. With edgesOnly only a value that holds a boundary is
// kept; with flip the boundaries already held may be chosen again (the
// steer's reuse). Each try forbids the classes the one before used.
func (c *Walker) remake(n *schemas.Node, props []schemas.Property, v *Value, edgesOnly, flip bool, done func() bool) (bool, error) {
	for _, p := range props {
		cur, ok := v.get(p.Name)
		ps := n.Property(p.Name)
		if !ok || ps == nil || (!flip && c.satisfies(p.Schema, cur)) {
			continue
		}
		if r := p.Schema.Resolve(); !flip && (r.HasConst || len(r.Enum) > 0) {
			continue
		}
		if flip && c.edge.leafOf(ps.Resolve()).kind == leafNone {
			continue
		}
		saved, savedField, savedReuse := c.avoid, c.field, c.reuse
		c.avoid = map[edges.Class]bool{}
		for k, x := range saved {
			c.avoid[k] = x
		}
		c.field, c.reuse = objectLabel(n, savedField)+"."+p.Name, flip
		old := *cur
		for try := 0; try < 8; try++ {
			c.used = c.used[:0]
			nv, err := c.gen(ps)
			if err != nil {
				c.avoid, c.field, c.reuse = saved, savedField, savedReuse
				return false, err
			}
			if len(c.used) == 0 && edgesOnly {
				break
			}
			v.set(p.Name, nv)
			if (flip && done()) || (!flip && c.satisfies(p.Schema, &nv)) {
				break
			}
			v.set(p.Name, old)
			if len(c.used) == 0 {
				break // a typical value: forbidding more changes nothing
			}
			for _, cl := range c.used {
				c.avoid[cl] = true
			}
		}
		c.avoid, c.field, c.reuse = saved, savedField, savedReuse
		if done() {
			return true, nil
		}
	}
	return done(), nil
}

// EdgeScanner finds the edges records hold, scanning records of the same
// definitions again and again with the work of reading the schemas done
// once. It is not safe for concurrent use.
type EdgeScanner struct{ sc scanner }

// NewEdgeScanner returns a scanner.
func NewEdgeScanner() *EdgeScanner {
	return &EdgeScanner{sc: scanner{steer: NewEdgeSteer(), probe: &Walker{patterns: map[string]*regexp.Regexp{}}}}
}

// Scan calls found with every edge the JSON document doc, a value of the
// definition n, holds, and the JSON pointer of where it holds it, in
// document order.
func (e *EdgeScanner) Scan(n *schemas.Node, doc []byte, found func(k edges.Key, path string)) error {
	v, err := ParseValue(doc)
	if err != nil {
		return err
	}
	e.sc.found = found
	e.sc.scan(n, "", &v, "")
	return nil
}

type scanner struct {
	steer *EdgeSteer
	probe *Walker
	found func(edges.Key, string)
}

func (sc *scanner) scan(n *schemas.Node, field string, v *Value, path string) {
	n = n.Resolve()
	switch {
	case n.False:
	case n.NullableTarget() != nil:
		if v.kind == kNull {
			sc.found(edges.Key{Class: edges.Null, Field: field}, path)
			return
		}
		sc.scan(n.NullableTarget(), field, v, path)
	case len(n.AllOf) > 0 && len(n.Types) == 0:
		sc.scan(n.AllOf[0], field, v, path)
	case isChoice(n):
		// A constant branch first: a value it holds may pass the others'
		// types too ("" is a string, as a URL is).
		for _, consts := range []bool{true, false} {
			for i, b := range n.AnyOf {
				if b.Resolve().HasConst == consts && sc.probe.satisfies(b, v) {
					sc.found(edges.Key{Class: edges.Branch, Field: objectLabel(n, field), Value: branchName(b, i)}, path)
					sc.scan(b, field, v, path)
					return
				}
			}
		}
	case n.HasConst:
	case len(n.Enum) > 0:
		if v.kind == kString {
			sc.found(edges.Key{Class: edges.Enum, Field: enumName(n, field), Value: v.text}, path)
		}
	case n.IsOpaque():
	case v.kind == kObject && n.HasType("object"):
		obj := objectLabel(n, field)
		group := sc.steer.group(n)
		for _, b := range group {
			if _, ok := v.get(b); ok {
				sc.found(edges.Key{Class: edges.Branch, Field: obj, Value: b}, path)
			}
		}
		for _, p := range n.Properties {
			pl := obj + "." + p.Name
			pv, ok := v.get(p.Name)
			optional := !n.IsRequired(p.Name) && !contains(group, p.Name)
			switch {
			case !ok && optional:
				sc.found(edges.Key{Class: edges.Absent, Field: pl}, path)
			case ok && optional:
				sc.found(edges.Key{Class: edges.Present, Field: pl}, path+"/"+escapeToken(p.Name))
			}
			if ok {
				sc.scan(p.Schema, pl, pv, path+"/"+escapeToken(p.Name))
			}
		}
	case v.kind == kArray && n.HasType("array"):
		if len(v.obj) == 0 && (n.MinItems == nil || *n.MinItems == 0) {
			sc.found(edges.Key{Class: edges.EmptyArray, Field: field}, path)
		}
		if n.Items != nil {
			for i := range v.obj {
				sc.scan(n.Items, field+"[]", &v.obj[i].val, path+"/"+strconv.Itoa(i))
			}
		}
	default:
		for _, cl := range sc.steer.leafOf(n).holds(n, v) {
			sc.found(edges.Key{Class: cl, Field: field}, path)
		}
	}
}

// escapeToken escapes a JSON pointer token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// ParseValue reads one JSON document into a Value, objects' properties in
// their order, so that a record made before can be changed and encoded
// again.
func ParseValue(doc []byte) (Value, error) {
	p := &valueParser{doc: doc}
	v, err := p.value(0)
	if err == nil {
		p.space()
		if p.at < len(doc) {
			err = p.errorf("data after the document")
		}
	}
	if err != nil {
		return Value{}, fmt.Errorf("parse record: %w", err)
	}
	return v, nil
}

// valueParser reads JSON into Values: a small recursive descent, several
// times faster than encoding/json's tokens; encoding/json reads the strings
// with escapes and checks the numbers.
type valueParser struct {
	doc []byte
	at  int
}

// maxDepth bounds the nesting ParseValue reads (records nest a dozen deep).
const maxDepth = 200

func (p *valueParser) space() {
	for p.at < len(p.doc) && (p.doc[p.at] == ' ' || p.doc[p.at] == '\t' || p.doc[p.at] == '\n' || p.doc[p.at] == '\r') {
		p.at++
	}
}

func (p *valueParser) errorf(format string, a ...any) error {
	return fmt.Errorf("offset %d: %s", p.at, fmt.Sprintf(format, a...))
}

func (p *valueParser) value(depth int) (Value, error) {
	p.space()
	if p.at >= len(p.doc) {
		return Value{}, p.errorf("unexpected end")
	}
	if depth > maxDepth {
		return Value{}, p.errorf("nested deeper than %d", maxDepth)
	}
	switch c := p.doc[p.at]; {
	case c == '{' || c == '[':
		return p.composite(depth)
	case c == '"':
		s, err := p.str()
		return str(s), err
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.at
		for p.at < len(p.doc) && strings.IndexByte("+-0123456789.eE", p.doc[p.at]) >= 0 {
			p.at++
		}
		text := p.doc[start:p.at]
		if !json.Valid(text) {
			return Value{}, p.errorf("bad number %q", text)
		}
		return numText(string(text)), nil
	}
	for _, lit := range []struct {
		text string
		v    Value
	}{{"true", boolean(true)}, {"false", boolean(false)}, {"null", Value{}}} {
		if bytes.HasPrefix(p.doc[p.at:], []byte(lit.text)) {
			p.at += len(lit.text)
			return lit.v, nil
		}
	}
	return Value{}, p.errorf("unexpected %q", p.doc[p.at])
}

func (p *valueParser) composite(depth int) (Value, error) {
	out, closing := Value{kind: kObject}, byte('}')
	if p.doc[p.at] == '[' {
		out.kind, closing = kArray, ']'
	}
	p.at++
	p.space()
	if p.at < len(p.doc) && p.doc[p.at] == closing {
		p.at++
		return out, nil
	}
	for {
		var name string
		if out.kind == kObject {
			p.space()
			if p.at >= len(p.doc) || p.doc[p.at] != '"' {
				return Value{}, p.errorf("want a property name")
			}
			var err error
			if name, err = p.str(); err != nil {
				return Value{}, err
			}
			p.space()
			if p.at >= len(p.doc) || p.doc[p.at] != ':' {
				return Value{}, p.errorf("want a colon")
			}
			p.at++
		}
		x, err := p.value(depth + 1)
		if err != nil {
			return Value{}, err
		}
		out.obj = append(out.obj, field{name: name, val: x})
		p.space()
		if p.at >= len(p.doc) {
			return Value{}, p.errorf("unexpected end")
		}
		switch p.doc[p.at] {
		case ',':
			p.at++
		case closing:
			p.at++
			return out, nil
		default:
			return Value{}, p.errorf("unexpected %q", p.doc[p.at])
		}
	}
}

// str reads a string; one with escapes or invalid UTF-8 is unquoted by
// encoding/json.
func (p *valueParser) str() (string, error) {
	start := p.at
	escaped := false
	for p.at++; p.at < len(p.doc); p.at++ {
		switch c := p.doc[p.at]; {
		case c == '\\':
			escaped = true
			p.at++
		case c == '"':
			p.at++
			raw := p.doc[start:p.at]
			if !escaped && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", p.errorf("bad string: %v", err)
			}
			return s, nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		}
	}
	return "", p.errorf("unterminated string")
}
