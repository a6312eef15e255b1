package walker

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/internal/random"
	"github.com/chaindata/harness/internal/race"
	"github.com/chaindata/harness/schemas"
)

// recordDefinitions are the records of the five listings.
var recordDefinitions = []string{"Transaction", "Game", "CoreSnapshot", "EthereumKeyRotation", "NetworkParameter"}

// TestSteeredRunsHoldEveryEdge makes runs of records of each listing's
// definition steered by an EdgeSteer, from several universes: each run
// ends within a bound, every record is valid under both profiles, and the
// run holds every edge of the definition but the string classes of a
// transaction's type (Transaction's rules make it name the command kind).
func TestSteeredRunsHoldEveryEdge(t *testing.T) {
	if testing.Short() && race.Enabled {
		t.Skip("-short under the race detector: nothing concurrent; make test runs it without the detector")
	}
	seeds := int64(2)
	if testing.Short() {
		seeds = 1
	}
	for _, name := range recordDefinitions {
		n := schemas.MustLookup(name)
		ref := schemas.MustLoadProfile(name, schemas.Reference)
		spec := schemas.MustLoadProfile(name, schemas.Spec)
		for seed := int64(1); seed <= seeds; seed++ {
			c := New(random.New(0), defaultUniverse(random.New(seed)))
			s := NewEdgeSteer()
			c.SteerEdges(s)
			records := 0
			for ; records < 300 && len(s.Wanted(n)) > 0; records++ {
				c.Start(seed*1000+int64(records), time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
				v, err := c.Object(n, "")
				if err != nil {
					t.Fatalf("%s seed %d record %d: %v", name, seed, records, err)
				}
				doc := v.AppendJSON(nil)
				if err := ref.Validate(doc); err != nil {
					t.Fatalf("%s seed %d record %d: %v", name, seed, records, err)
				}
				if err := spec.Validate(doc); err != nil {
					t.Fatalf("%s seed %d record %d, spec profile: %v", name, seed, records, err)
				}
				if err := NewEdgeScanner().Scan(n, doc, func(k edges.Key, _ string) { s.Saw(k) }); err != nil {
					t.Fatal(err)
				}
				s.Finish()
			}
			if len(s.Wanted(n)) > 0 {
				t.Errorf("%s seed %d: %d records and still wanted: %v", name, seed, records, s.Wanted(n))
			}
			var missing []edges.Key
			for _, k := range s.Missing(n) {
				if k.Field != "Transaction.type" {
					missing = append(missing, k)
				}
			}
			if len(missing) > 0 {
				t.Errorf("%s seed %d: %d records hold not %v", name, seed, records, missing)
			}
			if name == "Transaction" && (records < 20 || records > 200) {
				t.Errorf("Transaction seed %d: %d records, want some 70", seed, records)
			}
		}
	}
}

// TestEdgeValuesAreValid checks, for every scalar definition of the
// schemas, that the value of each of its classes validates against it
// under both profiles, and that it holds its class and only the classes
// its value says.
func TestEdgeValuesAreValid(t *testing.T) {
	steer := NewEdgeSteer()
	checked := map[edges.Class]int{}
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name)
		l := steer.leafOf(n)
		for _, cl := range l.classes {
			v := l.values[cl]
			doc := v.AppendJSON(nil)
			for _, p := range schemas.Profiles() {
				if err := schemas.Validate(name, p, doc); err != nil {
					t.Errorf("%s %s: %s is not valid (%s): %v", name, cl, doc, p, err)
				}
			}
			if held := l.holds(n, &v); !slices.Contains(held, cl) {
				t.Errorf("%s: the %s value %s holds %v", name, cl, doc, held)
			}
			checked[cl]++
		}
	}
	for _, cl := range edges.Classes {
		switch cl {
		case edges.Enum, edges.Branch, edges.Absent, edges.Present, edges.Null, edges.EmptyArray:
			continue // not scalar classes
		case edges.True, edges.False:
			continue // booleans are written inline, never a definition of their own
		}
		if checked[cl] == 0 {
			t.Errorf("no scalar definition has class %s", cl)
		}
	}
}

// TestLeafClasses pins the classes of the palette's kinds of scalar.
func TestLeafClasses(t *testing.T) {
	tests := []struct {
		def  string
		want []edges.Class
	}{
		{"Uint64", []edges.Class{edges.Zero, edges.Above2To53, edges.Uint64Max}},
		{"BlockHeight", []edges.Class{edges.Zero, edges.Above2To53, edges.Uint64Max}},
		{"Int64", []edges.Class{edges.Zero, edges.Above2To53, edges.Int64Max, edges.Int64Min}},
		{"Int32", []edges.Class{edges.Zero, edges.Minimum, edges.Maximum}},
		{"KeyIndex", []edges.Class{edges.Minimum, edges.Maximum}},
		{"Probability", []edges.Class{edges.Minimum, edges.Maximum, edges.ManyDigits}},
		{"Double", []edges.Class{edges.Zero, edges.ManyDigits, edges.Negative}},
		{"Amount", []edges.Class{edges.Zero, edges.ManyDigits}},
		{"OptionalAmount", []edges.Class{edges.EmptyString, edges.Zero, edges.ManyDigits}},
		{"Decimal", []edges.Class{edges.Zero, edges.ManyDigits, edges.Negative}},
		{"SignedFraction", []edges.Class{edges.Zero, edges.ManyDigits, edges.Negative}},
		{"PositiveDecimal", []edges.Class{edges.ManyDigits}},
		{"OptionalMarketId", []edges.Class{edges.EmptyString}},
		{"PartyId", nil},
		{"Timestamp", nil},
		{"Url", nil},
		{"NodeName", []edges.Class{edges.EmptyString, edges.LongString, edges.NonASCII, edges.Escapes}},
		{"SignatureAlgo", []edges.Class{edges.LongString, edges.NonASCII, edges.Escapes}},
	}
	steer := NewEdgeSteer()
	for _, tc := range tests {
		got := steer.leafOf(schemas.MustLookup(tc.def)).classes
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: classes %v, want %v", tc.def, got, tc.want)
		}
	}
}

// TestLeafValues pins the values of some classes, and the bounds of
// numbers: 0 only strictly between them, a value at a bound is in range.
func TestLeafValues(t *testing.T) {
	f := func(x float64) *float64 { return &x }
	esc := str(escapesText)
	steer := NewEdgeSteer()
	tests := []struct {
		node  *schemas.Node
		class edges.Class
		want  string // "" when the node has no such class
	}{
		{schemas.MustLookup("Int32"), edges.Minimum, "-2147483648"},
		{schemas.MustLookup("Int32"), edges.Maximum, "2147483647"},
		{schemas.MustLookup("Int32"), edges.Zero, "0"},
		{schemas.MustLookup("Uint64"), edges.Uint64Max, `"18446744073709551615"`},
		{schemas.MustLookup("Int64"), edges.Int64Min, `"-9223372036854775808"`},
		{schemas.MustLookup("Int64"), edges.Above2To53, `"9007199254740993"`},
		{schemas.MustLookup("Probability"), edges.ManyDigits, manyDigitNumber},
		{schemas.MustLookup("Double"), edges.Negative, negativeNumber},
		{schemas.MustLookup("OptionalDecimal"), edges.Negative, `"` + negativeStrings[0] + `"`},
		{schemas.MustLookup("SignedFraction"), edges.Negative, `"` + negativeStrings[1] + `"`},
		{schemas.MustLookup("Fraction"), edges.ManyDigits, `"` + manyDigitStrings[2] + `"`},
		{schemas.MustLookup("Amount"), edges.ManyDigits, `"` + manyDigitStrings[1] + `"`},
		{&schemas.Node{Types: []string{"integer"}, Minimum: f(-5), Maximum: f(0)}, edges.Zero, ""},
		{&schemas.Node{Types: []string{"integer"}, Minimum: f(0), Maximum: f(5)}, edges.Zero, ""},
		{&schemas.Node{Types: []string{"integer"}, Minimum: f(-1)}, edges.Zero, "0"},
		{&schemas.Node{Types: []string{"number"}, Maximum: f(0.1234567890123456789012345678901234567890)}, edges.ManyDigits, manyDigitNumber},
		{&schemas.Node{Types: []string{"number"}, Maximum: f(0.12)}, edges.ManyDigits, ""},
		{&schemas.Node{Types: []string{"number"}, Minimum: f(-1234567890.12345678901234567890123456789)}, edges.Negative, negativeNumber},
		{&schemas.Node{Types: []string{"number"}, Minimum: f(-1)}, edges.Negative, ""},
		{&schemas.Node{Types: []string{"string"}, MaxLength: new(int)}, edges.NonASCII, ""},
		{&schemas.Node{Types: []string{"string"}, MaxLength: new(utf8.RuneCountInString(nonASCIIText))}, edges.NonASCII, `"` + nonASCIIText + `"`},
		{&schemas.Node{Types: []string{"string"}, MinLength: new(utf8.RuneCountInString(escapesText))}, edges.EmptyString, ""},
		{&schemas.Node{Types: []string{"string"}, MinLength: new(utf8.RuneCountInString(escapesText))}, edges.NonASCII, ""},
		{&schemas.Node{Types: []string{"string"}, MinLength: new(utf8.RuneCountInString(escapesText))}, edges.Escapes, string(esc.AppendJSON(nil))},
	}
	for i, tc := range tests {
		l := steer.leafOf(tc.node)
		v, ok := l.values[tc.class]
		got := ""
		if ok {
			got = string(v.AppendJSON(nil))
		}
		if got != tc.want || slices.Contains(l.classes, tc.class) != ok {
			t.Errorf("%d %s: %s value %q, want %q", i, tc.node.Name, tc.class, got, tc.want)
		}
	}
}

// TestStringEdgeValues checks the text of the string classes: the long
// string is exactly its length in code points, longer in UTF-16; the
// escapes hold every character JSON must escape, and are written escaped.
func TestStringEdgeValues(t *testing.T) {
	title := schemas.MustLookup("ProposalRationale").Property("title")
	if got := utf8.RuneCountInString(longText(title)); got != 100 {
		t.Errorf("long title: %d code points, want 100", got)
	}
	free := schemas.MustLookup("NodeName")
	long := longText(free)
	if got := utf8.RuneCountInString(long); got != edges.LongStringRunes {
		t.Errorf("long text: %d code points, want %d", got, edges.LongStringRunes)
	}
	if utf16 := len([]rune(long)) + strings.Count(long, "😀"); utf16 <= edges.LongStringRunes || isNonASCII(long) {
		t.Errorf("the long text should count more in UTF-16 (%d) and hold no right-to-left text", utf16)
	}
	if !hasEscapes(escapesText) || hasEscapes(strings.ReplaceAll(escapesText, "\x1f", "")) {
		t.Error("hasEscapes should need every control character")
	}
	if !isNonASCII(nonASCIIText) || isNonASCII("😀 only") || isNonASCII("שלום only") {
		t.Error("isNonASCII should need an astral character and right-to-left text")
	}
	esc := str(escapesText)
	doc := esc.AppendJSON(nil)
	for _, want := range []string{`\"`, `\\`, `\u0000`, `\u001f`, `\n`, `\u2028`, `\u2029`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("the escapes are written %s, without %s", doc, want)
		}
	}
	var back string
	if err := json.Unmarshal(doc, &back); err != nil || back != escapesText {
		t.Errorf("the escapes do not read back: %v", err)
	}
}

// TestScanEdges scans hand-written records and checks each edge found and
// its path.
func TestScanEdges(t *testing.T) {
	tests := []struct {
		def, doc string
		want     []string // "key @path"
	}{
		{"ProposalRationale", `{"title":"","description":"x"}`, []string{
			"empty-string ProposalRationale.title @/title",
		}},
		{"Signature", `{"algo":"a","value":"00","version":2147483647}`, []string{
			"maximum Signature.version @/version",
		}},
		{"MarginModeUpdate", `{"marketId":"` + strings.Repeat("d", 64) + `","mode":"MODE_CROSS_MARGIN","marginFactor":""}`, []string{
			"enum MarginMode=MODE_CROSS_MARGIN @/mode",
			"present MarginModeUpdate.marginFactor @/marginFactor",
			"empty-string MarginModeUpdate.marginFactor @/marginFactor",
		}},
		{"ConcentratedLiquidityParameters", `{"base":"0","lowerBound":"","upperBound":"123456789012345678901234567890"}`, []string{
			"zero ConcentratedLiquidityParameters.base @/base",
			"present ConcentratedLiquidityParameters.lowerBound @/lowerBound",
			"empty-string ConcentratedLiquidityParameters.lowerBound @/lowerBound",
			"present ConcentratedLiquidityParameters.upperBound @/upperBound",
			"many-digits ConcentratedLiquidityParameters.upperBound @/upperBound",
			"absent ConcentratedLiquidityParameters.leverageAtLowerBound @",
			"absent ConcentratedLiquidityParameters.leverageAtUpperBound @",
		}},
		{"AmendAmm", `{"marketId":"` + strings.Repeat("a", 64) + `","slippageTolerance":"0.5","concentratedLiquidityParameters":null}`, []string{
			"absent AmendAmm.commitmentAmount @",
			"absent AmendAmm.proposedFee @",
			"present AmendAmm.concentratedLiquidityParameters @/concentratedLiquidityParameters",
			"null AmendAmm.concentratedLiquidityParameters @/concentratedLiquidityParameters",
		}},
		{"Game", `{"epoch":"18446744073709551615","id":"` + strings.Repeat("b", 64) + `","participants":"0","rewardAssetId":"` + strings.Repeat("c", 64) + `","individual":{"individual":[]}}`, []string{
			"branch Game=individual @",
			"uint64-max Game.epoch @/epoch",
			"zero Game.participants @/participants",
			"empty-array IndividualEntities.individual @/individual/individual",
		}},
	}
	for _, tc := range tests {
		var got []string
		err := NewEdgeScanner().Scan(schemas.MustLookup(tc.def), []byte(tc.doc), func(k edges.Key, path string) {
			got = append(got, k.String()+" @"+path)
		})
		if err != nil {
			t.Fatalf("%s: %v", tc.def, err)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("%s %s:\n got %q\nwant %q", tc.def, tc.doc, got, want)
		}
	}
	if err := NewEdgeScanner().Scan(schemas.MustLookup("Game"), []byte(`{"epoch":`), func(edges.Key, string) {}); err == nil {
		t.Error("a document cut short should not scan")
	}
}

// TestScanChoosesTheConstantBranch: an OptionalUrl of "" is its constant
// branch, though "" is a string as a URL is.
func TestScanChoosesTheConstantBranch(t *testing.T) {
	var got []string
	for _, url := range []string{`""`, `"https://example.com/"`} {
		doc := `{"id":"` + strings.Repeat("a", 64) + `","name":"n","avatarUrl":` + url + `}`
		_ = NewEdgeScanner().Scan(schemas.MustLookup("AnnounceNode"), []byte(doc), func(k edges.Key, path string) {
			if k.Class == edges.Branch {
				got = append(got, k.String()+" @"+path)
			}
		})
	}
	want := []string{`branch OptionalUrl=const "" @/avatarUrl`, `branch OptionalUrl=Url @/avatarUrl`}
	if !slices.Equal(got, want) {
		t.Errorf("branches %q, want %q", got, want)
	}
}

// TestEdgeKeysOfADefinition pins the edges of a small
// definition: its optional fields, its nullable one, its scalars' classes.
func TestEdgeKeysOfADefinition(t *testing.T) {
	var got []string
	for _, k := range NewEdgeSteer().Missing(schemas.MustLookup("Signature")) {
		got = append(got, k.String())
	}
	want := []string{
		"minimum Signature.version", "maximum Signature.version",
		// a hex string of digits only, as the pattern allows
		"many-digits Signature.value",
		"long-string Signature.algo", "non-ascii Signature.algo", "escapes Signature.algo",
	}
	if !slices.Equal(got, want) {
		t.Errorf("the edges of Signature: %q, want %q", got, want)
	}
	keys := NewEdgeSteer().Missing(schemas.MustLookup("Command"))
	for _, k := range []edges.Key{
		{Class: edges.Branch, Field: "Command", Value: "withdrawSubmission"},
		{Class: edges.Branch, Field: "Command", Value: "amendAmm"},
		{Class: edges.Null, Field: "AmendAmm.concentratedLiquidityParameters"},
		{Class: edges.Enum, Field: "MarginMode", Value: "MODE_ISOLATED_MARGIN"},
	} {
		if !slices.Contains(keys, k) {
			t.Errorf("the edges of Command lack %s", k)
		}
	}
	if slices.Contains(keys, edges.Key{Class: edges.Enum, Field: "MarginMode", Value: "MODE_UNSPECIFIED"}) {
		t.Error("the edges of Command have the margin mode its allOf excludes")
	}
	if !slices.IsSortedFunc(keys, func(a, b edges.Key) int {
		if a.Less(b) {
			return -1
		}
		return 1
	}) {
		t.Error("the edges are not sorted")
	}
}

func TestParseValue(t *testing.T) {
	doc := `{"b":[1,-2.50,"x",null,true,false,{},1e+5],"a":{"z":"\u0000\"","y":[]}}`
	v, err := ParseValue([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(v.AppendJSON(nil)); got != doc {
		t.Errorf("round trip %s, want %s", got, doc)
	}
	spaced := " {\t\"b\" :\r\n[ 1 , \"x\" ] } \n"
	if v, err := ParseValue([]byte(spaced)); err != nil || string(v.AppendJSON(nil)) != `{"b":[1,"x"]}` {
		t.Errorf("%q parsed as %s (%v)", spaced, v.AppendJSON(nil), err)
	}
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, err := ParseValue(deep(maxDepth + 1)); err != nil {
		t.Errorf("%d nested arrays: %v", maxDepth+1, err)
	}
	if _, err := ParseValue(deep(maxDepth + 2)); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Errorf("%d nested arrays: %v, want an error", maxDepth+2, err)
	}
	for _, bad := range []string{`{"a":1} {}`, `{"a":`, `]`, ``, `{"a" 1}`, `{1:2}`, `[1 2]`, `{"a":1,}`, `"\x"`, "\"a\x01\"", `"abc`, `nul`, `-`, `01`, `[1,]`,
		`{`, `[`, `{"a"`, `{"a":1`, `[1`, `"`, `{"a":1 `, `{ `} {
		if _, err := ParseValue([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestHolds checks which classes values hold, at the classes' boundaries.
func TestHolds(t *testing.T) {
	digitsOf := func(n int) string { return "0." + strings.Repeat("1", n-1) }
	flag := &schemas.Node{Types: []string{"boolean"}}
	steer := NewEdgeSteer()
	tests := []struct {
		node *schemas.Node
		v    Value
		want []edges.Class
	}{
		{schemas.MustLookup("Double"), numText("0"), []edges.Class{edges.Zero}},
		{schemas.MustLookup("Double"), numText("-0.5"), []edges.Class{edges.Negative}},
		{schemas.MustLookup("Double"), numText(digitsOf(edges.ManyDigitsCount)), []edges.Class{edges.ManyDigits}},
		{schemas.MustLookup("Double"), numText(digitsOf(edges.ManyDigitsCount - 1)), nil},
		{schemas.MustLookup("Double"), str("0"), nil},
		{schemas.MustLookup("Double"), numText("1e"), nil},
		{schemas.MustLookup("Int32"), numText("2147483647"), []edges.Class{edges.Maximum}},
		{schemas.MustLookup("Int32"), numText("-2147483648"), []edges.Class{edges.Minimum}},
		{schemas.MustLookup("Uint64"), str("9007199254740992"), nil},
		{schemas.MustLookup("Uint64"), str("9007199254740993"), []edges.Class{edges.Above2To53}},
		{schemas.MustLookup("Uint64"), str("18446744073709551615"), []edges.Class{edges.Uint64Max}},
		{schemas.MustLookup("Uint64"), str("0"), []edges.Class{edges.Zero}},
		{schemas.MustLookup("Uint64"), num(0), nil},
		{schemas.MustLookup("Int64"), str("9223372036854775807"), []edges.Class{edges.Int64Max}},
		{schemas.MustLookup("Int64"), str("-9223372036854775808"), []edges.Class{edges.Int64Min}},
		{schemas.MustLookup("Int64"), str("-9007199254740993"), nil},
		{schemas.MustLookup("Amount"), str("0"), []edges.Class{edges.Zero}},
		{schemas.MustLookup("Amount"), str(""), nil},
		{schemas.MustLookup("Amount"), str(strings.Repeat("7", edges.ManyDigitsCount)), []edges.Class{edges.ManyDigits}},
		{schemas.MustLookup("Amount"), str(strings.Repeat("7", edges.ManyDigitsCount-1)), nil},
		{schemas.MustLookup("Amount"), num(0), nil},
		{schemas.MustLookup("OptionalAmount"), str(""), []edges.Class{edges.EmptyString}},
		{schemas.MustLookup("Decimal"), str("-1.5"), []edges.Class{edges.Negative}},
		{schemas.MustLookup("NodeName"), str(""), []edges.Class{edges.EmptyString}},
		{schemas.MustLookup("NodeName"), str(strings.Repeat("é", edges.LongStringRunes)), []edges.Class{edges.LongString}},
		{schemas.MustLookup("NodeName"), str(strings.Repeat("é", edges.LongStringRunes-1)), nil},
		{schemas.MustLookup("NodeName"), str(nonASCIIText), []edges.Class{edges.NonASCII}},
		{schemas.MustLookup("NodeName"), str(escapesText), []edges.Class{edges.Escapes}},
		{schemas.MustLookup("NodeName"), num(1), nil},
		{flag, boolean(true), []edges.Class{edges.True}},
		{flag, boolean(false), []edges.Class{edges.False}},
		{flag, str("true"), nil},
	}
	for i, tc := range tests {
		v := tc.v
		got := steer.leafOf(tc.node).holds(tc.node, &v)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%d: %s %s holds %v, want %v", i, tc.node.Name, v.AppendJSON(nil), got, tc.want)
		}
	}
}

// TestEdgeSteerGivesUpAnEdgeItMisses: an edge chosen in maxMisses records
// that none holds is no longer wanted nor counted in a potential, though
// still missing; one a record holds is neither.
func TestEdgeSteerGivesUpAnEdgeItMisses(t *testing.T) {
	n := schemas.MustLookup("Signature")
	s := NewEdgeSteer()
	k := edges.Key{Class: edges.Maximum, Field: "Signature.version"}
	before := s.potential(n, "")
	for i := 0; i < maxMisses; i++ {
		if !s.wanted(k) || !slices.Contains(s.Wanted(n), k) {
			t.Fatalf("after %d misses the steer no longer wants %s", i, k)
		}
		if p := s.potential(n, ""); p != before {
			t.Fatalf("after %d misses the potential is %d, not %d", i, p, before)
		}
		s.pending[k] = true
		s.Finish()
	}
	if s.wanted(k) || slices.Contains(s.Wanted(n), k) || !slices.Contains(s.Missing(n), k) {
		t.Errorf("after %d misses: wanted %v, still missing %v", maxMisses, s.wanted(k), slices.Contains(s.Missing(n), k))
	}
	if after := s.potential(n, ""); after != before-1 {
		t.Errorf("potential %d, then %d after giving up one edge", before, after)
	}
	held := edges.Key{Class: edges.Minimum, Field: "Signature.version"}
	s.pending[held] = true
	s.Saw(held)
	s.Finish()
	if s.misses[held] != 0 || s.wanted(held) || slices.Contains(s.Missing(n), held) {
		t.Errorf("an edge a record holds counts %d misses", s.misses[held])
	}
	if len(s.pending) != 0 {
		t.Error("Finish leaves edges pending")
	}
}

// TestScanArrayBounds: an empty array holds the empty edge only where
// the schema allows it.
func TestScanArrayBounds(t *testing.T) {
	zero, one := 0, 1
	for _, tc := range []struct {
		min  *int
		want int
	}{{nil, 1}, {&zero, 1}, {&one, 0}} {
		arr := &schemas.Node{Types: []string{"array"}, MinItems: tc.min, Items: schemas.MustLookup("Uint64")}
		found := 0
		sc := &scanner{steer: NewEdgeSteer(), probe: &Walker{}, found: func(k edges.Key, _ string) {
			if k.Class == edges.EmptyArray {
				found++
			}
		}}
		v := Value{kind: kArray}
		sc.scan(arr, "X.list", &v, "")
		if found != tc.want {
			t.Errorf("minItems %v: %d empty edges, want %d", tc.min, found, tc.want)
		}
	}
}

// TestEdgeKeysOfAnArrayNeverEmpty: an array of minItems 1 has no empty
// edge.
func TestEdgeKeysOfAnArrayNeverEmpty(t *testing.T) {
	one := 1
	s := NewEdgeSteer()
	arr := &schemas.Node{Types: []string{"array"}, MinItems: &one, Items: schemas.MustLookup("Uint64")}
	keys := s.keys(arr, "X.list")
	if slices.Contains(keys, edges.Key{Class: edges.EmptyArray, Field: "X.list"}) || !slices.Contains(keys, edges.Key{Class: edges.Zero, Field: "X.list[]"}) {
		t.Errorf("keys of a non-empty array of uint64: %v", keys)
	}
}

func TestNonASCIIBounds(t *testing.T) {
	tests := map[string]bool{
		"\U00010000\u0590": true, "\uffff\u0590": false,
		"😀\u06ff": true, "😀\u058f": false, "😀\u0700": false,
	}
	for s, want := range tests {
		if got := isNonASCII(s); got != want {
			t.Errorf("isNonASCII(%+q) = %v, want %v", s, got, want)
		}
	}
}

// steered returns a walker steered by a new steer, making values of the
// field labelled field.
func steered(field string) (*Walker, *EdgeSteer) {
	c := New(random.New(0), defaultUniverse(random.New(1)))
	s := NewEdgeSteer()
	c.SteerEdges(s)
	c.field = field
	return c, s
}

// TestEdgeChoices: a nullable is made, not null, while its value has edges
// wanted; an anyOf takes the branch with wanted edges, and some branch
// when none has.
func TestEdgeChoices(t *testing.T) {
	nullable := schemas.MustLookup("AmendAmm").Property("concentratedLiquidityParameters")
	const field = "AmendAmm.concentratedLiquidityParameters"
	for i := range 40 {
		c, s := steered(field)
		s.Saw(edges.Key{Class: edges.Null, Field: field})
		c.Start(int64(i), time.Time{})
		v, err := c.gen(nullable)
		if err != nil || v.kind != kObject {
			t.Fatalf("try %d: a nullable with edges wanted below made %s (%v)", i, v.AppendJSON(nil), err)
		}
	}
	url := schemas.MustLookup("OptionalUrl")
	const urlField = "AnnounceNode.avatarUrl"
	empties := 0
	for i := range 40 {
		c, s := steered(urlField)
		s.Saw(edges.Key{Class: edges.Branch, Field: "OptionalUrl", Value: "Url"})
		c.Start(int64(i), time.Time{})
		v, err := c.gen(url)
		if err != nil || v.text != "" {
			t.Fatalf("try %d: the wanted empty branch not taken: %q (%v)", i, v.text, err)
		}
		// Every branch held: any branch, never none.
		s.Saw(edges.Key{Class: edges.Branch, Field: "OptionalUrl", Value: `const ""`})
		c.Start(int64(i), time.Time{})
		if v, err = c.gen(url); err != nil || v.kind != kString {
			t.Fatalf("try %d: with every branch held: %s (%v)", i, v.AppendJSON(nil), err)
		}
		if v.text == "" {
			empties++
		}
	}
	if empties == 0 || empties == 40 {
		t.Errorf("with every branch held, %d of 40 values were empty: a choice should vary", empties)
	}
}

// TestRepairKeepsTheChosenEdge: an amendment whose size holds an edge the
// record chose, and whose sizeDelta (which forbids size unless 0) holds
// none, keeps its size: the repair drops the sizeDelta instead.
func TestRepairKeepsTheChosenEdge(t *testing.T) {
	n := schemas.MustLookup("OrderAmendment")
	c, s := steered("OrderAmendment")
	size := edges.Key{Class: edges.Above2To53, Field: "OrderAmendment.size"}
	s.pending[size] = true
	v, err := ParseValue([]byte(`{"marketId":"` + strings.Repeat("a", 64) + `","orderId":"` + strings.Repeat("b", 64) + `","size":"9007199254740993","sizeDelta":"5"}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.repair(n, &v); err != nil {
		t.Fatal(err)
	}
	got, ok := v.get("size")
	if !ok || got.text != "9007199254740993" {
		t.Errorf("the repair lost the size: %s", v.AppendJSON(nil))
	}
	if d, ok := v.get("sizeDelta"); ok {
		t.Errorf("the repair kept sizeDelta %s beside size: it should drop it, an optional field holding no chosen edge", d.text)
	}
	if err := schemas.Validate("OrderAmendment", schemas.Reference, v.AppendJSON(nil)); err != nil {
		t.Error(err)
	}
}

// TestRepairRoutes takes the repair through each of its routes, and checks
// the edge each keeps.
func TestRepairRoutes(t *testing.T) {
	hex := func(c string) string { return strings.Repeat(c, 64) }
	tests := []struct {
		name, def, field, doc string
		pending, seen          []edges.Key
		check                  func(v *Value) string
	}{
		{
			// sizeDelta, not 0, forbids size: size goes, the sizeDelta
			// the record chose stays.
			name: "a property the rule wants gone", def: "OrderAmendment", field: "OrderAmendment",
			doc:     `{"marketId":"` + hex("a") + `","orderId":"` + hex("b") + `","size":"5","sizeDelta":"9223372036854775807"}`,
			pending: []edges.Key{{Class: edges.Int64Max, Field: "OrderAmendment.sizeDelta"}},
			check: func(v *Value) string {
				if _, ok := v.get("size"); ok {
					return "size kept"
				}
				if d, _ := v.get("sizeDelta"); d == nil || d.text != "9223372036854775807" {
					return "sizeDelta lost"
				}
				return ""
			},
		},
		{
			// A limit order needs a price: with the price's edges all
			// held, a typical price, as the last resort.
			name: "a typical value", def: "OrderSubmission", field: "OrderSubmission",
			doc: `{"marketId":"` + hex("a") + `","side":"SIDE_BUY","size":"5","price":"","type":"TYPE_LIMIT","timeInForce":"TIME_IN_FORCE_GTC"}`,
			seen: []edges.Key{{Class: edges.Zero, Field: "OrderSubmission.price"}, {Class: edges.ManyDigits, Field: "OrderSubmission.price"},
				{Class: edges.EmptyString, Field: "OrderSubmission.price"}},
			check: func(v *Value) string {
				if p, _ := v.get("price"); p == nil || p.text == "" || p.text == "0" || len(p.text) >= edges.ManyDigitsCount {
					return "no typical price"
				}
				return ""
			},
		},
		{
			// The empty price the record chose breaks the limit order's
			// rule, whose condition (a required type) cannot change:
			// another edge of the price.
			name: "another edge", def: "OrderSubmission", field: "OrderSubmission",
			doc:     `{"marketId":"` + hex("a") + `","side":"SIDE_BUY","size":"5","price":"","type":"TYPE_LIMIT","timeInForce":"TIME_IN_FORCE_GTC"}`,
			pending: []edges.Key{{Class: edges.EmptyString, Field: "OrderSubmission.price"}},
			check: func(v *Value) string {
				if p, _ := v.get("price"); p == nil || p.text != "0" {
					return "the price is not the next edge, 0"
				}
				return ""
			},
		},
		{
			// reduceOnly asks IOC or FOK: the enum is set, reduceOnly
			// stays.
			name: "an enum the rule wants", def: "OrderSubmission", field: "OrderSubmission",
			doc: `{"marketId":"` + hex("a") + `","side":"SIDE_BUY","size":"5","price":"7","type":"TYPE_LIMIT","timeInForce":"TIME_IN_FORCE_GTC","reduceOnly":true}`,
			check: func(v *Value) string {
				r, _ := v.get("reduceOnly")
				tif, _ := v.get("timeInForce")
				if r == nil || !r.b || tif == nil || (tif.text != "TIME_IN_FORCE_IOC" && tif.text != "TIME_IN_FORCE_FOK") {
					return "reduceOnly dropped or the time in force not set"
				}
				return ""
			},
		},
		{
			// code 0 wants no error: with every edge of the error held,
			// no other edge fits it, and the code leaves 0 rather than
			// the error its escapes.
			name: "the condition flipped", def: "Transaction", field: "Transaction",
			seen: []edges.Key{
				{Class: edges.EmptyString, Field: "Transaction.error"}, {Class: edges.LongString, Field: "Transaction.error"},
				{Class: edges.NonASCII, Field: "Transaction.error"}, {Class: edges.Escapes, Field: "Transaction.error"},
				{Class: edges.Zero, Field: "Transaction.code"},
			},
			check: func(v *Value) string {
				code, _ := v.get("code")
				e, _ := v.get("error")
				if code == nil || code.text == "0" || e == nil || e.text != escapesText {
					return "the code stayed 0 or the error lost its escapes"
				}
				return ""
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := schemas.MustLookup(tc.def)
			c, s := steered(tc.field)
			for _, k := range tc.seen {
				s.Saw(k)
			}
			for _, k := range tc.pending {
				s.pending[k] = true
			}
			doc := tc.doc
			if tc.def == "Transaction" {
				c.Start(3, time.Time{})
				v, err := c.Object(n, "orderSubmission")
				if err != nil {
					t.Fatal(err)
				}
				v.set("code", num(0))
				v.set("error", str(escapesText))
				doc = string(v.AppendJSON(nil))
			}
			v, err := ParseValue([]byte(doc))
			if err != nil {
				t.Fatal(err)
			}
			if err := c.repair(n, &v); err != nil {
				t.Fatal(err)
			}
			if msg := tc.check(&v); msg != "" {
				t.Errorf("%s: %s", msg, v.AppendJSON(nil))
			}
			if err := schemas.Validate(tc.def, schemas.Reference, v.AppendJSON(nil)); err != nil {
				t.Error(err)
			}
		})
	}
}
