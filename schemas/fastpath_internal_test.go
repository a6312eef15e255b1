package schemas

import (
	"reflect"
	"testing"

	"github.com/chaindata/harness/schemas/internal/fastpath"
)

// TestFastPathKeywordsOfTheFiles: the compiled definitions use every
// keyword the fast path supports but maxItems (which the handcrafted cases
// check), in the Reference profile, and no other in either profile.
func TestFastPathKeywordsOfTheFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("compiles every definition in both profiles; make test runs it without the race detector")
	}
	want := []string{"$ref", "additionalProperties", "allOf", "anyOf", "boolean", "const", "dependencies", "else", "enum",
		"format", "if", "items", "maxLength", "maximum", "minItems", "minLength", "minimum", "not", "oneOf", "pattern",
		"properties", "propertyNames", "required", "then", "type"}
	for _, p := range Profiles() {
		used := map[string]int{}
		for _, name := range Names() {
			v, err := LoadProfile(name, p)
			if err != nil {
				t.Fatal(err)
			}
			if v.fast == nil {
				t.Fatalf("%s (%s): no fast path: %v", name, p, v.fastErr)
			}
			for k, n := range fastpath.Summary(v.fast) {
				used[k] += n
			}
		}
		got := sortedKeys(used)
		if p == Reference && !reflect.DeepEqual(got, want) {
			t.Errorf("%s: keywords %v, want %v", p, got, want)
		}
		for _, k := range got {
			if !slicesContains(want, k) {
				t.Errorf("%s: keyword %s", p, k)
			}
		}
	}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
