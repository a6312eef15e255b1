package schemas_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/chaindata/harness/schemas"
)

// amendAmmResponse returns a ListTransactionsResponse holding the Transaction
// example with the amendAmm Command example.
func amendAmmResponse(t *testing.T) any {
	t.Helper()
	return map[string]any{"transactions": []any{transactionWith(t, "amendAmm", "Amend AMM")}}
}

func TestViolationPaths(t *testing.T) {
	const base = "/transactions/0/command/amendAmm"
	tests := []struct {
		name      string
		edit      func(t *testing.T, doc any) any
		path      string
		rule      string
		wantValue any
	}{
		{"bad value", func(t *testing.T, doc any) any { return setAt(t, doc, base+"/marketId", "XYZ") },
			base + "/marketId", "pattern", "XYZ"},
		{"missing property", func(t *testing.T, doc any) any { return deleteAt(t, doc, base+"/marketId") },
			base + "/marketId", "required", nil},
		{"unknown property", func(t *testing.T, doc any) any { return setAt(t, doc, base+"/marketID", "x") },
			base + "/marketID", "additional_property_not_allowed", nil},
		{"unknown property needing escapes", func(t *testing.T, doc any) any { return setAt(t, doc, base+"/a~1b~0c", "x") },
			base + "/a~1b~0c", "additional_property_not_allowed", nil},
		{"wrong type", func(t *testing.T, doc any) any {
			return setAt(t, doc, base+"/concentratedLiquidityParameters", mustDecode(t, "12345"))
		}, base + "/concentratedLiquidityParameters", "number_any_of", nil},
		{"inside a nullable object", func(t *testing.T, doc any) any {
			return setAt(t, doc, base+"/concentratedLiquidityParameters", map[string]any{"base": "-1"})
		}, base + "/concentratedLiquidityParameters/base", "pattern", "-1"},
		{"array element", func(t *testing.T, doc any) any { return setAt(t, doc, "/transactions/0/index", mustDecode(t, "-1")) },
			"/transactions/0/index", "number_gte", nil},
		{"root", func(t *testing.T, doc any) any { return []any{} },
			"", "invalid_type", nil},
	}
	v := schemas.MustLoad("ListTransactionsResponse")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := tc.edit(t, amendAmmResponse(t))
			got := violationsOf(t, v, encodeJSON(t, doc))
			var found *schemas.Violation
			for i := range got {
				if got[i].Path == tc.path && got[i].Rule == tc.rule {
					found = &got[i]
				}
			}
			if found == nil {
				t.Fatalf("want %s at %q, got %v", tc.rule, tc.path, got)
			}
			if tc.wantValue != nil && found.Value != tc.wantValue {
				t.Errorf("value %#v, want %#v", found.Value, tc.wantValue)
			}
			if found.Message == "" {
				t.Error("empty message")
			}
			shown := tc.path
			if shown == "" {
				shown = "/"
			}
			if s := found.String(); !strings.HasPrefix(s, shown+": ") || !strings.HasSuffix(s, "["+tc.rule+"]") || strings.Contains(s, "\n") {
				t.Errorf("String() = %q, want one line %q ... [%s]", s, shown+": ", tc.rule)
			}
		})
	}
}

func TestValidationErrorListsEveryViolationInPathOrder(t *testing.T) {
	doc := amendAmmResponse(t)
	doc = setAt(t, doc, "/transactions/0/hash", "lowercase")
	doc = setAt(t, doc, "/transactions/0/command/amendAmm/proposedFee", "-1")
	doc = setAt(t, doc, "/transactions/0/block", mustDecode(t, "45120415"))
	err := schemas.MustLoad("ListTransactionsResponse").Validate(encodeJSON(t, doc))
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("got %v, want a *ValidationError", err)
	}
	if verr.Schema != "ListTransactionsResponse" {
		t.Errorf("Schema = %q", verr.Schema)
	}
	for _, p := range []string{"/transactions/0/hash", "/transactions/0/command/amendAmm/proposedFee", "/transactions/0/block"} {
		if !hasViolation(verr.Violations, p) {
			t.Errorf("no violation at %s: %v", p, verr.Violations)
		}
	}
	if !sort.SliceIsSorted(verr.Violations, func(i, j int) bool { return verr.Violations[i].Path < verr.Violations[j].Path }) {
		t.Errorf("violations are not ordered by path: %v", verr.Violations)
	}
	seen := map[string]bool{}
	for _, v := range verr.Violations {
		if seen[v.String()] {
			t.Errorf("duplicate violation %s", v)
		}
		seen[v.String()] = true
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "does not match schema ListTransactionsResponse (profile reference): ") || !strings.Contains(msg, "/transactions/0/hash") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestValidateRejectsInputThatIsNotJSON(t *testing.T) {
	tests := []struct {
		name string
		doc  string
	}{
		{"empty", ""},
		{"truncated", `{"startCursor": "`},
		{"trailing data", `{} {}`},
		{"bare word", `hello`},
		{"single quotes", `{'a': 1}`},
	}
	v := schemas.MustLoad("PageInfo")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := v.Validate([]byte(tc.doc))
			if err == nil {
				t.Fatal("accepted")
			}
			var verr *schemas.ValidationError
			if errors.As(err, &verr) {
				t.Fatalf("got a ValidationError for input that is not JSON: %v", err)
			}
			if !strings.Contains(err.Error(), "PageInfo") {
				t.Errorf("error %q does not name the schema", err)
			}
		})
	}
}

func TestValidateValue(t *testing.T) {
	v := schemas.MustLoad("NetworkParameter")
	type param struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	tests := []struct {
		name    string
		value   any
		valid   bool
		schemaE bool // the error is a ValidationError
	}{
		{"struct", param{"spam.pow.difficulty", "15"}, true, false},
		{"map", map[string]any{"key": "spam.pow.difficulty", "value": "15"}, true, false},
		{"invalid struct", param{"spam pow", "15"}, false, true},
		{"cannot marshal", map[string]any{"key": func() {}}, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := v.ValidateValue(tc.value)
			if (err == nil) != tc.valid {
				t.Fatalf("err = %v, want valid %v", err, tc.valid)
			}
			var verr *schemas.ValidationError
			if err != nil && errors.As(err, &verr) != tc.schemaE {
				t.Errorf("ValidationError = %v, want %v (%v)", !tc.schemaE, tc.schemaE, err)
			}
		})
	}
}

func TestLookupAndLoadByName(t *testing.T) {
	a, err := schemas.Load("Transaction")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := schemas.Load("Transaction")
	if a != b {
		t.Error("Load compiled the same definition twice")
	}
	if a.Name() != "Transaction" {
		t.Errorf("Name() = %q", a.Name())
	}
	tests := []struct {
		name string
		call func() error
	}{
		{"Load", func() error { _, err := schemas.Load("Transactions"); return err }},
		{"Lookup", func() error { _, err := schemas.Lookup("Transactions"); return err }},
		{"Definition", func() error { _, err := schemas.Definition("Transactions"); return err }},
		{"FileOf", func() error { _, err := schemas.FileOf("Transactions"); return err }},
		{"empty name", func() error { _, err := schemas.Load(""); return err }},
		{"file name", func() error { _, err := schemas.Load("transactions.json"); return err }},
	}
	for _, tc := range tests {
		t.Run("unknown name/"+tc.name, func(t *testing.T) {
			if err := tc.call(); err == nil || !strings.Contains(err.Error(), "no schema named") {
				t.Errorf("err = %v, want \"no schema named ...\"", err)
			}
		})
	}
	for _, must := range []func(){
		func() { schemas.MustLoad("Transactions") },
		func() { schemas.MustLookup("Transactions") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("Must... did not panic on an unknown name")
				}
			}()
			must()
		}()
	}
}

func TestDefinitionPrintsTheDefinitionAsWritten(t *testing.T) {
	for _, name := range schemas.Names() {
		data, err := schemas.Definition(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var def map[string]any
		if err := json.Unmarshal(data, &def); err != nil {
			t.Fatalf("%s: not JSON: %v", name, err)
		}
		n := schemas.MustLookup(name)
		if d, _ := def["description"].(string); d != n.Description {
			t.Errorf("%s: description %q, want %q", name, d, n.Description)
		}
	}
	data, _ := schemas.Definition("Signature")
	if !strings.Contains(string(data), `"$ref": "common.json#/definitions/SignatureAlgo"`) {
		t.Errorf("references are not kept as written:\n%s", data)
	}
	// Properties keep their file order.
	if i, j := strings.Index(string(data), `"algo"`), strings.Index(string(data), `"version"`); i < 0 || j < i {
		t.Errorf("property order lost:\n%s", data)
	}
}

func TestNamesAreSortedAndUnique(t *testing.T) {
	names := schemas.Names()
	if !sort.StringsAreSorted(names) {
		t.Error("Names() is not sorted")
	}
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("%s twice", names[i])
		}
	}
	names[0] = "changed"
	if schemas.Names()[0] == "changed" {
		t.Error("Names() returns the package's own slice")
	}
}

// TestConcurrentValidation validates from many goroutines at once, loading
// validators as it goes, so that -race sees any shared state.
func TestConcurrentValidation(t *testing.T) {
	type job struct {
		schema string
		doc    []byte
		valid  bool
	}
	var jobs []job
	for _, ex := range examples(t) {
		jobs = append(jobs, job{ex.def, ex.raw, true})
		if documentedOpen[ex.def] {
			continue
		}
		broken := encodeJSON(t, setAt(t, ex.doc, "/"+unknownProperty, "x"))
		jobs = append(jobs, job{ex.def, broken, false})
	}
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range jobs {
				j := jobs[(i+w*7)%len(jobs)]
				v, err := schemas.Load(j.schema)
				if err != nil {
					errs <- err
					return
				}
				err = v.Validate(j.doc)
				var verr *schemas.ValidationError
				switch {
				case j.valid && err != nil:
					errs <- fmt.Errorf("worker %d: %s: valid document rejected: %v", w, j.schema, err)
					return
				case !j.valid && !errors.As(err, &verr):
					errs <- fmt.Errorf("worker %d: %s: invalid document: got %v", w, j.schema, err)
					return
				case !j.valid && !hasViolation(verr.Violations, "/"+unknownProperty, "additional_property_not_allowed"):
					errs <- fmt.Errorf("worker %d: %s: wrong violations %v", w, j.schema, verr.Violations)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
