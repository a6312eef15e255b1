package schemas

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// wholeValidator returns a validator of the same definition and profile
// that checks every document in one piece.
func wholeValidator(t *testing.T, v *Validator) *Validator {
	t.Helper()
	w := &Validator{name: v.name, profile: v.profile, schema: v.schema}
	w.pagesOnce.Do(func() {})
	return w
}

// TestPageArrays checks which arrays of the listings are checked record by
// record, in each profile.
func TestPageArrays(t *testing.T) {
	want := map[string]string{
		"ListTransactionsResponse":         "transactions: Transaction",
		"ListGamesResponse":                "games/edges: GameEdge",
		"ListCoreSnapshotsResponse":        "coreSnapshots/edges: CoreSnapshotEdge",
		"ListEthereumKeyRotationsResponse": "keyRotations/edges: EthereumKeyRotationEdge",
		"ListNetworkParametersResponse":    "networkParameters/edges: NetworkParameterEdge",
		"Transaction":                      "",
		"Command":                          "",
	}
	for _, p := range Profiles() {
		for name, w := range want {
			v := MustLoadProfile(name, p)
			var got []string
			for _, pa := range v.pageArrays() {
				got = append(got, strings.Join(pa.path, "/")+": "+pa.items.name)
				if pa.items.profile != p {
					t.Errorf("%s (%s): records checked in profile %s", name, p, pa.items.profile)
				}
			}
			if strings.Join(got, ", ") != w {
				t.Errorf("%s (%s): page arrays %v, want %q", name, p, got, w)
			}
		}
	}
}

// TestPagesCheckedApartAsInOnePiece breaks the records of pages built from
// the examples, each record another way, and checks that the page checked
// record by record on every core gives exactly the error of the page
// checked in one piece: the same violations, paths and messages, in the
// same order, in both profiles.
func TestPagesCheckedApartAsInOnePiece(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one core: the records are still checked apart, in turn")
	}
	read := func(file string) any {
		data, err := os.ReadFile(filepath.Join("testdata", "examples", file))
		if err != nil {
			t.Fatal(err)
		}
		v, err := decodeDocument(data)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	clone := func(v any) any {
		data, _ := json.Marshal(v)
		out, _ := decodeDocument(data)
		return out
	}
	breakages := []func(rec map[string]any, i int){
		func(rec map[string]any, i int) {}, // left valid
		func(rec map[string]any, i int) { delete(rec, "hash") },
		func(rec map[string]any, i int) { rec["code"] = "zero" },
		func(rec map[string]any, i int) { rec["version"] = "TX_VERSION_V9" },
		func(rec map[string]any, i int) { rec["unexpectedField"] = i },
		func(rec map[string]any, i int) {
			rec["command"].(map[string]any)["transfer"] = map[string]any{}
			rec["command"].(map[string]any)["joinTeam"] = map[string]any{}
		},
		func(rec map[string]any, i int) { rec["command"] = map[string]any{"nonce": "1", "blockHeight": "2"} },
		func(rec map[string]any, i int) { rec["type"] = "Submit Order" },
		func(rec map[string]any, i int) { rec["pow"].(map[string]any)["tid"] = json.Number("7") },
		func(rec map[string]any, i int) { rec["signature"] = nil },
		func(rec map[string]any, i int) { rec["block"] = "01" },
	}
	tx := read("Transaction.json").(map[string]any)
	txs := make([]any, 60)
	for i := range txs {
		rec := clone(tx).(map[string]any)
		breakages[i%len(breakages)](rec, i)
		txs[i] = rec
	}
	pages := map[string]any{
		"ListTransactionsResponse": map[string]any{"transactions": txs},
		"valid page":               map[string]any{"transactions": []any{clone(tx), clone(tx), clone(tx)}},
		"broken page":              map[string]any{"transactions": txs, "unexpectedField": true},
		"no array":                 map[string]any{"transactions": "none"},
		"empty array":              map[string]any{"transactions": []any{}},
		"one record":               map[string]any{"transactions": txs[1:2]},
	}
	params := read("ListNetworkParametersResponse.json").(map[string]any)
	orig := params["networkParameters"].(map[string]any)["edges"].([]any)
	edges := append([]any(nil), orig...)
	for i := 0; len(edges) < 40; i++ {
		e := clone(orig[i%len(orig)]).(map[string]any)
		switch i % 4 {
		case 1:
			delete(e, "cursor")
		case 2:
			e["node"].(map[string]any)["value"] = json.Number("1")
		case 3:
			e["node"] = "x"
		}
		edges = append(edges, e)
	}
	params["networkParameters"].(map[string]any)["edges"] = edges
	pages["ListNetworkParametersResponse"] = params
	checked := 0
	for label, page := range pages {
		name := label
		if !strings.HasPrefix(name, "List") {
			name = "ListTransactionsResponse"
		}
		doc, _ := json.Marshal(page)
		for _, p := range Profiles() {
			v := MustLoadProfile(name, p)
			got, want := v.Validate(doc), wholeValidator(t, v).Validate(doc)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s (%s): checked apart:\n%v\nin one piece:\n%v", label, p, got, want)
			}
			var a, b *ValidationError
			if got != nil && want != nil && errorsAs(got, &a) && errorsAs(want, &b) && !reflect.DeepEqual(a, b) {
				t.Errorf("%s (%s): violations differ beyond their text", label, p)
			}
			if got != nil {
				checked++
			}
		}
	}
	if checked < 8 {
		t.Errorf("only %d broken pages compared", checked)
	}
}

func errorsAs(err error, target **ValidationError) bool {
	e, ok := err.(*ValidationError)
	*target = e
	return ok
}

// TestForEachBoundsItsHelpers runs nested and concurrent pools and checks
// that the helpers never exceed GOMAXPROCS-1 and that every index is done
// once.
func TestForEachBoundsItsHelpers(t *testing.T) {
	limit := int64(runtime.GOMAXPROCS(0) - 1)
	var mu sync.Mutex
	seen := map[[2]int]int{}
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			forEach(50, func(i int) {
				forEach(20, func(j int) {
					if h := helpers.Load(); h > limit {
						t.Errorf("%d helpers, bound %d", h, limit)
					}
					mu.Lock()
					seen[[2]int{c*50 + i, j}]++
					mu.Unlock()
				})
			})
		}()
	}
	wg.Wait()
	if len(seen) != 4*50*20 {
		t.Errorf("%d calls, want %d", len(seen), 4*50*20)
	}
	for k, n := range seen {
		if n != 1 {
			t.Fatalf("%v done %d times", k, n)
		}
	}
	if h := helpers.Load(); h != 0 {
		t.Errorf("%d helpers left running", h)
	}
}

// TestValidateEachKeepsInputOrder checks ValidateEach against Validate,
// document by document.
func TestValidateEachKeepsInputOrder(t *testing.T) {
	v := MustLoad("Uint64")
	var docs [][]byte
	for i := range 500 {
		switch i % 3 {
		case 0:
			docs = append(docs, []byte(fmt.Sprintf(`"%d"`, i)))
		case 1:
			docs = append(docs, []byte(fmt.Sprintf(`"-%d"`, i)))
		default:
			docs = append(docs, []byte(`{`))
		}
	}
	errs := v.ValidateEach(docs)
	for i, doc := range docs {
		if fmt.Sprint(errs[i]) != fmt.Sprint(v.Validate(doc)) {
			t.Fatalf("document %d: %v, want %v", i, errs[i], v.Validate(doc))
		}
	}
}

// TestDecodeDocumentIsJSONValid checks that decodeDocument accepts what
// json.Valid accepts.
func TestDecodeDocumentIsJSONValid(t *testing.T) {
	for _, doc := range []string{
		`{}`, ` {} `, "{}\n", `{}x`, `{} {}`, `{`, ``, ` `, `"a"`, `1`, `1 2`, `[1,]`, `nul`, `null`, "\"\xff\"",
		`{"a":1}` + "\t\r\n", `{"a":1}` + "\v", "[" + strings.Repeat("[", 20000) + strings.Repeat("]", 20001),
	} {
		_, err := decodeDocument([]byte(doc))
		if (err == nil) != json.Valid([]byte(doc)) {
			t.Errorf("%.40q: decodeDocument error %v, json.Valid %v", doc, err, json.Valid([]byte(doc)))
		}
	}
}
