package world

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/chaindata/harness/generators/edges"
	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/schemas"
)

var update = flag.Bool("update", false, "rewrite the edge table of docs/edge-world.md from the edge world")

// edgeWorld is generated once for the tests that only read it.
var edgeWorld = sync.OnceValues(GenerateEdges)

// mustEdgeWorld returns the edge world; under -race -short it skips the
// test: the edge world has nothing concurrent of its own (the typical part
// is made as the default world is, whose tests run under the detector).
func mustEdgeWorld(t testing.TB) *World {
	t.Helper()
	if raceShort() {
		t.Skip("-race -short: the edge world has nothing concurrent of its own; make test runs this without the detector")
	}
	w, err := edgeWorld()
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// edgeRecords returns every record of the world by listing, with its
// definition, as the catalogue lists them.
func edgeRecords(w *World) []listingRows { return (&edgeMaker{w: w}).listingRows() }

func TestEdgeWorldRecordsAreValidUnderBothProfiles(t *testing.T) {
	w := mustEdgeWorld(t)
	for _, l := range edgeRecords(w) {
		docs := make([][]byte, len(l.rows))
		for i, rec := range l.rows {
			docs[i] = records.RecordJSON(rec)
		}
		for _, p := range schemas.Profiles() {
			bad := 0
			for i, err := range schemas.MustLoadProfile(l.def, p).ValidateEach(docs) {
				if err != nil {
					if bad++; bad <= 3 {
						t.Errorf("%s row %d (%s): %v", l.listing, i, p, err)
					}
				}
			}
		}
	}
}

func TestEdgeWorldIsConsistent(t *testing.T) {
	w := mustEdgeWorld(t)
	checkKeysAndOrder(t, w)
	checkRotationChains(t, w)
	parties, teams, nodeKeys := map[string]bool{}, map[string]map[string]bool{}, map[string]bool{}
	for _, p := range w.Parties {
		parties[p] = true
	}
	for _, tm := range w.Teams {
		teams[tm.ID] = map[string]bool{}
		for _, m := range tm.Members {
			teams[tm.ID][m] = true
		}
	}
	for _, n := range w.Nodes {
		nodeKeys[n.CorePubKey] = true
	}
	for _, g := range w.Games {
		if g.Epoch < w.FirstEpoch || g.Epoch > w.LatestEpoch {
			t.Errorf("game %s in epoch %d, outside [%d, %d]", g.ID, g.Epoch, w.FirstEpoch, w.LatestEpoch)
		}
		if g.Individual != nil {
			for _, e := range g.Individual.Individual {
				if !parties[e.Individual] {
					t.Errorf("game %s epoch %d: individual %s is no party of the world", g.ID, g.Epoch, e.Individual)
				}
			}
		}
		if g.Team != nil {
			for _, e := range g.Team.Team {
				members, ok := teams[e.Team.TeamID]
				if !ok {
					t.Errorf("game %s epoch %d: team %s is no team of the world", g.ID, g.Epoch, e.Team.TeamID)
				}
				for _, m := range e.Team.MembersParticipating {
					if !members[m.Individual] {
						t.Errorf("game %s epoch %d: %s plays for team %s without being a member", g.ID, g.Epoch, m.Individual, e.Team.TeamID)
					}
				}
			}
		}
	}
	for _, s := range w.Snapshots {
		if s.BlockHeight <= w.GenesisHeight || s.BlockHeight > w.LatestBlock {
			t.Errorf("snapshot at %d, outside the chain", s.BlockHeight)
		}
	}
	for _, tx := range w.Transactions {
		var rec struct {
			Block     string                     `json:"block"`
			Cursor    string                     `json:"cursor"`
			Type      string                     `json:"type"`
			Submitter string                     `json:"submitter"`
			CreatedAt string                     `json:"createdAt"`
			Command   map[string]json.RawMessage `json:"command"`
		}
		if err := json.Unmarshal(tx.JSON, &rec); err != nil {
			t.Fatal(err)
		}
		if tx.Block <= w.GenesisHeight || tx.Block > w.LatestBlock {
			t.Errorf("transaction %s outside the chain", tx.Cursor())
		}
		if rec.Block != strconv.FormatUint(tx.Block, 10) || rec.Cursor != tx.Cursor() {
			t.Errorf("transaction %s: block %s, cursor %s", tx.Cursor(), rec.Block, rec.Cursor)
		}
		if want := w.BlockTime(tx.Block).Format("2006-01-02T15:04:05Z"); rec.CreatedAt != want {
			t.Errorf("transaction %s created at %s, its block's time is %s", tx.Cursor(), rec.CreatedAt, want)
		}
		kind := ""
		for k := range rec.Command {
			if k != "nonce" && k != "blockHeight" {
				kind = k
			}
		}
		if want := commandTypeName(kind); rec.Type != want || tx.Type != want {
			t.Errorf("transaction %s of kind %s has type %q, want %q", tx.Cursor(), kind, rec.Type, want)
		}
		if !parties[rec.Submitter] && !(kind == "announceNode" && nodeKeys[rec.Submitter]) {
			t.Errorf("transaction %s (%s) submitted by %s, no party of the world", tx.Cursor(), kind, rec.Submitter)
		}
	}
}

// TestEdgeWorldCrossesTwoTo53 checks the chain's layout: blocks and epochs
// below and above 2^53, and 2^53+1 holding a transaction and games.
func TestEdgeWorldCrossesTwoTo53(t *testing.T) {
	w := mustEdgeWorld(t)
	const above = 1<<53 + 1
	if w.GenesisHeight >= 1<<53 || w.LatestBlock <= above || w.FirstEpoch >= 1<<53 || w.LatestEpoch <= above {
		t.Fatalf("blocks %d..%d, epochs %d..%d: both should cross 2^53", w.GenesisHeight+1, w.LatestBlock, w.FirstEpoch, w.LatestEpoch)
	}
	if !slices.ContainsFunc(w.Transactions, func(tx records.Transaction) bool { return tx.Block == above }) {
		t.Error("no transaction in block 2^53+1")
	}
	if !slices.ContainsFunc(w.Games, func(g records.Game) bool { return g.Epoch == above }) {
		t.Error("no game in epoch 2^53+1")
	}
	below := slices.ContainsFunc(w.Snapshots, func(s records.CoreSnapshot) bool { return s.BlockHeight < 1<<53 })
	over := slices.ContainsFunc(w.Snapshots, func(s records.CoreSnapshot) bool { return s.BlockHeight > above })
	if !below || !over {
		t.Errorf("snapshots below 2^53 %v, above %v: want both", below, over)
	}
	if sizes := []int{len(w.Games), len(w.Snapshots), len(w.KeyRotations), len(w.NetworkParameters), len(w.Transactions)}; slices.Max(sizes) > 600 || slices.Min(sizes) < 20 {
		t.Errorf("listings of %v rows: the edge world should be small, tens to a few hundred rows each", sizes)
	}
}

func TestEdgeWorldIsDeterministic(t *testing.T) {
	a := mustEdgeWorld(t)
	b, err := GenerateEdges()
	if err != nil {
		t.Fatal(err)
	}
	ra, rb := edgeRecords(a), edgeRecords(b)
	for i := range ra {
		if len(ra[i].rows) != len(rb[i].rows) {
			t.Fatalf("%s: %d rows, then %d", ra[i].listing, len(ra[i].rows), len(rb[i].rows))
		}
		for j := range ra[i].rows {
			if x, y := records.RecordJSON(ra[i].rows[j]), records.RecordJSON(rb[i].rows[j]); !bytes.Equal(x, y) {
				t.Fatalf("%s row %d differs:\n%s\n%s", ra[i].listing, j, x, y)
			}
		}
	}
	ca, _ := json.Marshal(a.Edges)
	cb, _ := json.Marshal(b.Edges)
	if !bytes.Equal(ca, cb) {
		t.Error("two edge worlds have different catalogues")
	}
}

// expectedEdges lists, from the schemas, the edges the issue asks of the
// edge world, by its own reading of the record definitions (not the
// walker's): each value of each enumeration, each member of each exclusive
// group and each anyOf branch, each optional field absent and present,
// null in each nullable field, each array empty, each integer string at 0,
// above 2^53 and at its type's bounds, each JSON number at its bounds (and
// 0 between them), decimals of many digits (negative where allowed), each
// string at "" where allowed, each free-text string long, non-ASCII and
// full of escapes, each boolean true and false.
func expectedEdges(t *testing.T) map[edges.Key]bool {
	u64, i64 := schemas.MustLookup("Uint64").Pattern, schemas.MustLookup("Int64").Pattern
	want := map[edges.Key]bool{}
	add := func(c edges.Class, field, value string) { want[edges.Key{Class: c, Field: field, Value: value}] = true }
	name := func(n *schemas.Node, field string) string {
		if n.Name != "" {
			return n.Name
		}
		return field
	}
	var walk func(n *schemas.Node, field string)
	walk = func(n *schemas.Node, field string) {
		n = n.Resolve()
		switch {
		case len(n.AnyOf) == 2 && n.AnyOf[1].HasType("null"):
			add(edges.Null, field, "")
			walk(n.AnyOf[0], field)
		case len(n.AnyOf) > 0 && len(n.Types) == 0:
			for i, b := range n.AnyOf {
				v := strconv.Itoa(i)
				if b.Ref != nil {
					v = b.Ref.Name
				}
				if b.HasConst {
					c, _ := json.Marshal(b.Const)
					v = "const " + string(c)
				}
				add(edges.Branch, name(n, field), v)
				walk(b, field)
			}
		case len(n.AllOf) > 0 && len(n.Types) == 0:
			base := n.AllOf[0].Resolve()
			for _, e := range base.Enum {
				excluded := false
				for _, rest := range n.AllOf[1:] {
					excluded = excluded || (rest.Not != nil && rest.Not.HasConst && rest.Not.Const == e)
				}
				if !excluded {
					add(edges.Enum, name(base, field), fmt.Sprint(e))
				}
			}
		case len(n.Enum) > 0:
			for _, e := range n.Enum {
				add(edges.Enum, name(n, field), fmt.Sprint(e))
			}
		case n.HasConst, n.IsOpaque(), len(n.Types) == 0:
			// a constant, an object accepted by name, any JSON value
		case n.HasType("object"):
			obj := name(n, field)
			group := n.ExclusiveGroup()
			for _, b := range group {
				add(edges.Branch, obj, b)
			}
			for _, p := range n.Properties {
				if !n.IsRequired(p.Name) && !slices.Contains(group, p.Name) {
					add(edges.Absent, obj+"."+p.Name, "")
					add(edges.Present, obj+"."+p.Name, "")
				}
				walk(p.Schema, obj+"."+p.Name)
			}
		case n.HasType("array"):
			if n.MinItems == nil || *n.MinItems == 0 {
				add(edges.EmptyArray, field, "")
			}
			walk(n.Items, field+"[]")
		case n.HasType("boolean"):
			add(edges.True, field, "")
			add(edges.False, field, "")
		case n.Pattern == u64:
			add(edges.Zero, field, "")
			add(edges.Above2To53, field, "")
			add(edges.Uint64Max, field, "")
		case n.Pattern == i64:
			add(edges.Zero, field, "")
			add(edges.Above2To53, field, "")
			add(edges.Int64Max, field, "")
			add(edges.Int64Min, field, "")
		case n.HasType("integer"), n.HasType("number"):
			if n.Minimum != nil {
				add(edges.Minimum, field, "")
			}
			if n.Maximum != nil {
				add(edges.Maximum, field, "")
			}
			if (n.Minimum == nil || *n.Minimum < 0) && (n.Maximum == nil || *n.Maximum > 0) {
				add(edges.Zero, field, "")
			}
			if n.HasType("number") {
				add(edges.ManyDigits, field, "")
				if n.Minimum == nil {
					add(edges.Negative, field, "")
				}
			}
		case n.Format == "uri" || n.Format == "date-time":
			// formats validators check: no free text
		case n.Pattern != "":
			re := regexp.MustCompile(n.Pattern)
			if re.MatchString("") {
				add(edges.EmptyString, field, "")
			}
			if re.MatchString("0") {
				add(edges.Zero, field, "")
			}
			long := strings.Repeat("7", 40)
			if re.MatchString(long) || re.MatchString(long+"."+long) || re.MatchString("0."+long) {
				add(edges.ManyDigits, field, "")
			}
			if re.MatchString("-"+long+".5") || re.MatchString("-0."+long) {
				add(edges.Negative, field, "")
			}
		case n.HasType("string"):
			if n.MinLength == nil || *n.MinLength == 0 {
				add(edges.EmptyString, field, "")
			}
			add(edges.LongString, field, "")
			add(edges.NonASCII, field, "")
			add(edges.Escapes, field, "")
		default:
			t.Errorf("%s (%s#%s): a value of no kind the test knows", field, n.File, n.Pointer)
		}
	}
	for _, def := range edgeDefinitions {
		walk(schemas.MustLookup(def), "")
	}
	return want
}

// TestEdgeWorldHoldsEveryEdgeOfTheSchemas checks that the catalogue holds
// every edge the schemas allow, or names it an exemption, and that the
// issue's classes are each held.
func TestEdgeWorldHoldsEveryEdgeOfTheSchemas(t *testing.T) {
	w := mustEdgeWorld(t)
	want := expectedEdges(t)
	byClass := map[edges.Class]int{}
	for k := range want {
		byClass[k.Class]++
		if _, ok := w.Edges.First(k); !ok && !w.Edges.Exempt(k) {
			t.Errorf("the edge world holds no %s", k)
		}
	}
	for _, cl := range edges.Classes {
		if byClass[cl] == 0 {
			t.Errorf("the schemas allow no %s edge: the test or the classes are wrong", cl)
		}
	}
	for _, k := range w.Edges.Keys() {
		if !want[k] {
			t.Errorf("the catalogue holds %s, which the schemas do not name", k)
		}
	}
	// The variants the issue names, by name.
	for _, k := range []edges.Key{
		{Class: edges.Branch, Field: "Command", Value: "amendAmm"},
		{Class: edges.Branch, Field: "Command", Value: "withdrawSubmission"},
		{Class: edges.Branch, Field: "DataSourceDefinition", Value: "external"},
		{Class: edges.Branch, Field: "DataSourceDefinition", Value: "internal"},
		{Class: edges.Branch, Field: "ExternalDataSource", Value: "ethOracle"},
		{Class: edges.Branch, Field: "ExternalDataSource", Value: "oracle"},
		{Class: edges.Branch, Field: "InternalDataSource", Value: "time"},
		{Class: edges.Branch, Field: "InternalDataSource", Value: "timeTrigger"},
		{Class: edges.Branch, Field: "SpotInstrumentConfiguration", Value: "spot"},
		{Class: edges.Branch, Field: "InstrumentConfiguration", Value: "future"},
		{Class: edges.Branch, Field: "InstrumentConfiguration", Value: "perpetual"},
		{Class: edges.Branch, Field: "AssetDetails", Value: "builtinAsset"},
		{Class: edges.Branch, Field: "AssetDetails", Value: "erc20"},
		{Class: edges.Branch, Field: "NewTransferConfiguration", Value: "oneOff"},
		{Class: edges.Branch, Field: "NewTransferConfiguration", Value: "recurring"},
		{Class: edges.LongString, Field: "ProposalRationale.description"},
		{Class: edges.LongString, Field: "ProposalRationale.title"},
		{Class: edges.EmptyArray, Field: "IndividualEntities.individual"},
		{Class: edges.Uint64Max, Field: "ProofOfWork.nonce"},
	} {
		if _, ok := w.Edges.First(k); !ok {
			t.Errorf("the edge world holds no %s", k)
		}
	}
}

// TestEdgeExemptionsAreNotHeld: every exemption is an edge the schemas
// allow and the world does not hold, with a reason.
func TestEdgeExemptionsAreNotHeld(t *testing.T) {
	w := mustEdgeWorld(t)
	want := expectedEdges(t)
	if len(w.Edges.Exemptions) == 0 {
		t.Fatal("no exemption: a chain's keys cannot sit at 0")
	}
	for _, e := range w.Edges.Exemptions {
		if !want[e.Key] {
			t.Errorf("exemption %s: no edge of the schemas", e.Key)
		}
		if _, held := w.Edges.First(e.Key); held {
			t.Errorf("exemption %s: the world holds it", e.Key)
		}
		if len(e.Reason) < 20 {
			t.Errorf("exemption %s: reason %q", e.Key, e.Reason)
		}
	}
}

// TestEdgeCatalogueIsTrue reads, for every edge of the catalogue, the value
// at its path in its row's record, and checks it is what its class says.
func TestEdgeCatalogueIsTrue(t *testing.T) {
	w := mustEdgeWorld(t)
	docs := map[int]any{}
	rows := 0
	for _, l := range edgeRecords(w) {
		for _, rec := range l.rows {
			var doc any
			dec := json.NewDecoder(bytes.NewReader(records.RecordJSON(rec)))
			dec.UseNumber()
			if err := dec.Decode(&doc); err != nil {
				t.Fatal(err)
			}
			r := w.Edges.Rows[rows]
			if r.Listing != l.listing || r.Cursor != cursorOf(rec) {
				t.Fatalf("catalogue row %d is %s %s, the world's is %s %s", rows, r.Listing, r.Cursor, l.listing, cursorOf(rec))
			}
			docs[rows] = doc
			rows++
		}
	}
	if rows != len(w.Edges.Rows) {
		t.Fatalf("the catalogue has %d rows, the world %d", len(w.Edges.Rows), rows)
	}
	bad := 0
	for _, e := range w.Edges.Edges {
		v, ok := pointer(docs[e.Row], e.Path)
		if msg := checkEdge(e.Key, v, ok); msg != "" {
			if bad++; bad <= 10 {
				t.Errorf("%s at %s %s: %s", e.Key, w.Edges.Rows[e.Row].Label, e.Path, msg)
			}
		}
	}
	if n := len(w.Edges.Row(records.ListingTransactions, w.Transactions[0].Cursor())); n == 0 {
		t.Error("Row finds no edge of the first transaction")
	}
}

func cursorOf(rec any) string {
	switch r := rec.(type) {
	case *records.Game:
		return r.Cursor()
	case *records.CoreSnapshot:
		return r.Cursor()
	case *records.EthereumKeyRotation:
		return r.Cursor()
	case *records.NetworkParameter:
		return r.Cursor()
	case *records.Transaction:
		return r.Cursor()
	}
	return ""
}

// pointer returns the value at a JSON pointer of a decoded document.
func pointer(doc any, path string) (any, bool) {
	if path == "" {
		return doc, true
	}
	cur := doc
	for _, tok := range strings.Split(path[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// checkEdge says what is wrong with a value found for a key ("" when it is
// right).
func checkEdge(k edges.Key, v any, found bool) string {
	if !found {
		return "nothing there"
	}
	s, isString := v.(string)
	n, isNumber := v.(json.Number)
	last := k.Field[strings.LastIndex(k.Field, ".")+1:]
	ok := false
	switch k.Class {
	case edges.Absent:
		obj, isObj := v.(map[string]any)
		_, has := obj[last]
		ok = isObj && !has
	case edges.Present:
		ok = true
	case edges.Null:
		ok = v == nil
	case edges.EmptyArray:
		a, isArray := v.([]any)
		ok = isArray && len(a) == 0
	case edges.Enum:
		ok = s == k.Value
	case edges.Branch:
		switch obj := v.(type) {
		case map[string]any:
			_, ok = obj[k.Value]
		case string:
			ok = (k.Value == `const ""`) == (obj == "")
		}
	case edges.Zero:
		ok = s == "0" || n == "0"
	case edges.Above2To53:
		x, good := new(big.Int).SetString(s, 10)
		ok = good && x.Cmp(big.NewInt(1<<53)) > 0 && s != "18446744073709551615" && s != "9223372036854775807"
	case edges.Uint64Max:
		ok = s == "18446744073709551615"
	case edges.Int64Max:
		ok = s == "9223372036854775807"
	case edges.Int64Min:
		ok = s == "-9223372036854775808"
	case edges.Minimum, edges.Maximum:
		bound := fieldNode(k.Field).Minimum
		if k.Class == edges.Maximum {
			bound = fieldNode(k.Field).Maximum
		}
		f, err := n.Float64()
		ok = isNumber && err == nil && bound != nil && f == *bound
	case edges.ManyDigits:
		text := s
		if isNumber {
			text = string(n)
		}
		ok = len(regexp.MustCompile(`[0-9]`).FindAllString(text, -1)) >= edges.ManyDigitsCount
	case edges.Negative:
		ok = strings.HasPrefix(s, "-") || strings.HasPrefix(string(n), "-")
	case edges.EmptyString:
		ok = isString && s == ""
	case edges.LongString:
		want := edges.LongStringRunes
		if m := fieldNode(k.Field).MaxLength; m != nil {
			want = *m
		}
		ok = utf8.RuneCountInString(s) == want && strings.ContainsRune(s, '😀')
	case edges.NonASCII:
		ok = strings.ContainsRune(s, '😀') && strings.ContainsRune(s, 'ש') && strings.ContainsRune(s, 'م')
	case edges.Escapes:
		ok = strings.Contains(s, `"`) && strings.Contains(s, `\`) && strings.Contains(s, "\u2028") && strings.Contains(s, "\u2029")
		for r := rune(0); r < 0x20; r++ {
			ok = ok && strings.ContainsRune(s, r)
		}
	case edges.True:
		ok = v == true
	case edges.False:
		ok = v == false
	}
	if ok {
		return ""
	}
	text := fmt.Sprintf("%v", v)
	if len(text) > 80 {
		text = text[:80] + "..."
	}
	return "found " + text
}

// fieldNode returns the schema of a field of a key ("Definition.a.b[]"),
// through references and nullable forms.
func fieldNode(field string) *schemas.Node {
	unwrap := func(n *schemas.Node) *schemas.Node {
		n = n.Resolve()
		if t := n.NullableTarget(); t != nil {
			n = t.Resolve()
		}
		return n
	}
	parts := strings.Split(field, ".")
	n := schemas.MustLookup(parts[0])
	for _, p := range parts[1:] {
		name := strings.TrimRight(p, "[]")
		n = unwrap(n).Property(name)
		for range strings.Count(p, "[]") {
			n = unwrap(n).Items
		}
	}
	return unwrap(n)
}

// TestEdgeWorldGrows grows the edge world through two epochs: the blocks
// follow its latest, their epochs carry on its own, and every record is
// valid.
func TestEdgeWorldGrows(t *testing.T) {
	w := mustEdgeWorld(t)
	g, err := w.Growth()
	if err != nil {
		t.Fatal(err)
	}
	n, err := g.BlocksForEpochs(2)
	if err != nil {
		t.Fatal(err)
	}
	if n < 2 || n > 200 {
		t.Fatalf("%d blocks for two epochs of %d blocks", n, w.blocks()/(w.LatestEpoch-w.FirstEpoch+1))
	}
	txv := schemas.MustLoad("Transaction")
	games := 0
	for i := 0; i < n; i++ {
		b, err := g.Next()
		if err != nil {
			t.Fatal(err)
		}
		if b.Height != w.LatestBlock+uint64(i)+1 || !b.Time.Equal(w.BlockTime(b.Height)) {
			t.Fatalf("block %d: height %d at %v", i, b.Height, b.Time)
		}
		for _, tx := range b.Transactions {
			if err := txv.Validate(tx.JSON); err != nil {
				t.Fatalf("block %d: %v", b.Height, err)
			}
		}
		for _, gm := range b.Games {
			if gm.Epoch <= w.LatestEpoch {
				t.Errorf("a new block brings a game of epoch %d, not after %d", gm.Epoch, w.LatestEpoch)
			}
			games++
		}
	}
	if g.Epoch() != w.LatestEpoch+2 || games == 0 {
		t.Errorf("after %d blocks: epoch %d (want %d), %d new games", n, g.Epoch(), w.LatestEpoch+2, games)
	}
}

func TestCommandTypeName(t *testing.T) {
	tests := map[string]string{
		"orderSubmission":    "Submit Order",
		"announceNode":       "Register New Node",
		"withdrawSubmission": "Withdraw Submission",
		"transfer":           "Transfer",
		"nodeVote":           "Node Vote",
	}
	for kind, want := range tests {
		if got := commandTypeName(kind); got != want {
			t.Errorf("commandTypeName(%q) = %q, want %q", kind, got, want)
		}
	}
}

// Markers of the generated part of docs/edge-world.md.
const (
	edgeDocBegin = "<!-- edge tables: generated from the edge world by go test ./generators/world -run TestEdgeWorldDoc -update -->\n"
	edgeDocEnd   = "<!-- end of the edge tables -->\n"
)

// TestEdgeWorldDoc checks that the tables of docs/edge-world.md are those
// the edge world's catalogue gives (-update rewrites them).
func TestEdgeWorldDoc(t *testing.T) {
	w := mustEdgeWorld(t)
	path := filepath.Join("..", "..", "docs", "edge-world.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := bytes.Index(doc, []byte(edgeDocBegin)), bytes.Index(doc, []byte(edgeDocEnd))
	if begin < 0 || end < begin {
		t.Fatalf("%s has no generated part between %q and %q", path, edgeDocBegin, edgeDocEnd)
	}
	var tables bytes.Buffer
	tables.WriteString("\n")
	if err := w.Edges.WriteMarkdown(&tables); err != nil {
		t.Fatal(err)
	}
	tables.WriteString("\n")
	at := begin + len(edgeDocBegin)
	if bytes.Equal(doc[at:end], tables.Bytes()) {
		return
	}
	if *update {
		out := append(append(append([]byte{}, doc[:at]...), tables.Bytes()...), doc[end:]...)
		if err := os.WriteFile(path, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("the tables of %s are not the edge world's: run go test ./generators/world -run TestEdgeWorldDoc -update", path)
}

// TestEdgeRecordsOfEveryListing runs every listing's edge records on the
// typical world with a steer that has seen none of its edges: snapshots
// and key rotations too, which the edge world's typical records leave
// nothing to want. Each listing gains rows that hold every edge of its
// definition, and the world stays consistent and valid.
func TestEdgeRecordsOfEveryListing(t *testing.T) {
	if raceShort() {
		t.Skip("-race -short: the edge world has nothing concurrent of its own; make test runs this without the detector")
	}
	w, err := edgeBase()
	if err != nil {
		t.Fatal(err)
	}
	before := []int{len(w.Games), len(w.Snapshots), len(w.KeyRotations), len(w.Transactions)}
	params := slices.Clone(w.NetworkParameters)
	m := newEdgeMaker(w)
	for _, step := range []func() error{m.transactions, m.games, m.snapshots, m.rotations, m.parameters} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	after := []int{len(w.Games), len(w.Snapshots), len(w.KeyRotations), len(w.Transactions)}
	for i, name := range []string{"games", "snapshots", "key rotations", "transactions"} {
		if after[i] <= before[i] {
			t.Errorf("%s: %d rows, then %d: no edge record added", name, before[i], after[i])
		}
	}
	changed := 0
	for i := range params {
		if params[i].Value != w.NetworkParameters[i].Value {
			changed++
		}
	}
	if changed == 0 || params[0].Value == w.NetworkParameters[0].Value {
		t.Errorf("%d parameters changed: the first ones, in key order, should take the edge values", changed)
	}
	for _, def := range edgeDefinitions {
		if wanted := m.steer.Wanted(schemas.MustLookup(def)); len(wanted) > 0 {
			t.Errorf("%s: still wanted %v", def, wanted)
		}
	}
	checkKeysAndOrder(t, w)
	checkRotationChains(t, w)
	for _, l := range edgeRecords(w) {
		v := schemas.MustLoad(l.def)
		for i, rec := range l.rows {
			if err := v.Validate(records.RecordJSON(rec)); err != nil {
				t.Fatalf("%s row %d: %v", l.listing, i, err)
			}
		}
	}
}

// TestEdgeRecordsRefuseWhatTheyCannotDo: a run that reaches its bound, a
// chain with no block left for a transaction or a key rotation, and a world
// with no parameter to take an edge value each fail, saying so.
func TestEdgeRecordsRefuseWhatTheyCannotDo(t *testing.T) {
	if raceShort() {
		t.Skip("-race -short: the edge world has nothing concurrent of its own; make test runs this without the detector")
	}
	base, err := edgeBase()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		spoil func(m *edgeMaker)
		step  func(m *edgeMaker) error
		want  string
	}{
		{"a bound of no record", func(m *edgeMaker) { m.maxRecords = 0 }, (*edgeMaker).snapshots, "CoreSnapshot: 0 records hold not every edge; still wanted: [above-2^53 CoreSnapshot.blockHeight"},
		{"no block for a transaction", func(m *edgeMaker) { m.w.LatestBlock = m.w.GenesisHeight }, (*edgeMaker).transactions, "no free block left for edge transaction 1"},
		{"no block for a rotation", func(m *edgeMaker) { m.w.LatestBlock = m.w.KeyRotations[len(m.w.KeyRotations)-1].BlockHeight }, (*edgeMaker).rotations, "no block left for edge key rotation 0"},
		{"no parameter", func(m *edgeMaker) { m.w.NetworkParameters = nil }, (*edgeMaker).parameters, "no parameter left for edge value 0"},
	}
	for _, tc := range tests {
		w := *base
		w.Transactions = slices.Clone(base.Transactions)
		w.KeyRotations = slices.Clone(base.KeyRotations)
		w.Nodes = slices.Clone(base.Nodes)
		m := newEdgeMaker(&w)
		tc.spoil(m)
		err := tc.step(m)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

func TestCoprimeStride(t *testing.T) {
	for n, want := range map[int]int{2000: 373, 373 * 2: 379, 373 * 379: 383, 373 * 379 * 383 * 389: 1, 0: 1} {
		if got := coprimeStride(n); got != want {
			t.Errorf("coprimeStride(%d) = %d, want %d", n, got, want)
		}
	}
}

func TestEdgeGameEpochs(t *testing.T) {
	w := &World{FirstEpoch: 100, LatestEpoch: 139}
	for i, want := range map[int]uint64{0: 103, 1: 110, 5: 138, 6: 105, 40: 103} {
		if got := w.edgeGameEpoch(i); got != want {
			t.Errorf("edge game %d in epoch %d, want %d", i, got, want)
		}
	}
}
