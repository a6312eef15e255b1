package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func example(l Listing, query, rule string, at int) Example {
	return Example{Listing: l.String(), Query: query, Rule: rule, Seed: 1, Time: time.Date(2026, 1, 1, 0, 0, at, 0, time.UTC)}
}

// TestExamplesRoundTrip saves examples and reads them back, merged with
// what the file held: one a listing and query (the newest), newest first.
func TestExamplesRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "examples.json")
	if exs, err := LoadExamples(path); err != nil || exs != nil {
		t.Fatalf("a file that does not exist: %v, %v; want none and no error", exs, err)
	}
	first := []Example{
		example(Games, "gameId=a&pagination.first=1", "GAMES-MOD-003", 1),
		example(Transactions, "cmdTypes=Submit+Order&first=2", "TX-MOD-003", 2),
	}
	if err := SaveExamples(path, first); err != nil {
		t.Fatal(err)
	}
	got, err := LoadExamples(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != first[1] || got[1] != first[0] {
		t.Errorf("read back %v, want the two, newest first", got)
	}
	// The same query again (its keys in another order), and a new one.
	again := []Example{
		example(Games, "pagination.first=1&gameId=a", "GAMES-MOD-005", 5),
		example(Snapshots, "pagination.last=3", "SNAP-MOD-003", 4),
	}
	if err := SaveExamples(path, again); err != nil {
		t.Fatal(err)
	}
	got, _ = LoadExamples(path)
	var rules []string
	for _, e := range got {
		rules = append(rules, e.Rule)
	}
	if !slices.Equal(rules, []string{"GAMES-MOD-005", "SNAP-MOD-003", "TX-MOD-003"}) {
		t.Errorf("merged rules %v, want the newest of each query, newest first", rules)
	}
	// A file named without a directory is written beside itself too.
	t.Chdir(filepath.Dir(path))
	if err := SaveExamples("bare.json", []Example{example(Games, "gameId=c", "GAMES-MOD-003", 3)}); err != nil {
		t.Errorf("a file named without a directory: %v", err)
	}
	if exs, err := LoadExamples(filepath.Join(filepath.Dir(path), "bare.json")); err != nil || len(exs) != 1 {
		t.Errorf("read back %v, %v", exs, err)
	}
	os.Remove("bare.json")
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode: %v (%v), want 0644", info.Mode(), err)
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("%d files beside the examples, want none (no temporary file left)", len(ents)-1)
	}
	qs := ExamplesOf(got, Games)
	if len(qs) != 1 || qs[0].Get("gameId") != "a" {
		t.Errorf("the games' examples: %v", qs)
	}
	if qs := ExamplesOf(got, Transactions); len(qs) != 1 || qs[0].Get("cmdTypes") != "Submit Order" {
		t.Errorf("the transactions' examples: %v", qs)
	}
}

// TestExamplesAreBounded keeps the newest MaxExamples.
func TestExamplesAreBounded(t *testing.T) {
	var found []Example
	for i := range MaxExamples + 30 {
		found = append(found, example(Snapshots, fmt.Sprintf("pagination.first=%d", i+1), "SNAP-MOD-003", i))
	}
	got := MergeExamples(nil, found)
	if len(got) != MaxExamples || got[0].Query != fmt.Sprintf("pagination.first=%d", MaxExamples+30) || got[MaxExamples-1].Query != "pagination.first=31" {
		t.Errorf("%d examples, from %q to %q; want the newest %d", len(got), got[0].Query, got[len(got)-1].Query, MaxExamples)
	}
}

// TestExamplesFileErrors checks that a file that cannot be used is refused
// with its name and the line at fault.
func TestExamplesFileErrors(t *testing.T) {
	good := `{"listing": "games", "query": "gameId=a", "rule": "GAMES-MOD-003", "seed": 1, "time": "2026-01-01T00:00:00Z"}`
	for _, tc := range []struct {
		name, text, want string
	}{
		{"not JSON", "{\n\"examples\": [\n" + good + ",\n  nope\n]}", ":4: not JSON"},
		{"not an object", "[]", ":1: want an object"},
		{"another member", "{\n  \"waivers\": []\n}", `:2: unexpected member waivers`},
		{"examples twice", `{"examples": [], "examples": []}`, `:1: unexpected member examples`},
		{"not a list", "{\"examples\":\n {}}", ":2: want a list of examples"},
		{"an unknown field", "{\"examples\": [\n" + good + ",\n\n" + strings.Replace(good, `"seed"`, `"sed"`, 1) + "]}", `:4: json: unknown field "sed"`},
		{"a listing of no API", "{\"examples\": [\n" + good + ",\n" + strings.Replace(good, "games", "gmaes", 1) + "\n]}", `:3: example 2: listing "gmaes" is none of the API's`},
		{"a query that does not parse", "{\"examples\": [\n\n" + strings.Replace(good, "gameId=a", "gameId=%zz", 1) + "]}", `:3: example 1: query "gameId=%zz"`},
		{"no rule", "{\"examples\": [" + strings.Replace(good, "GAMES-MOD-003", "", 1) + "]}", ":1: example 1: no rule"},
		{"a field of the wrong type", "{\"examples\": [\n" + good + ",\n" + good + ",\n" + strings.Replace(good, `"seed": 1`, `"seed": "one"`, 1) + "]}", ":4: json: cannot unmarshal string"},
		{"not a list of objects", "{\"examples\": [\n\n 3]}", ":3: json: cannot unmarshal number"},
		{"cut short", "{\"examples\": [\n" + good, ":2: the JSON ends early"},
		{"cut short after the bracket", "{\"examples\": [\n  ", ":2: the JSON ends early"},
		{"cut short after a comma", "{\"examples\": [\n" + good + ",\n ", ":3: the JSON ends early"},
		{"something after", "{\"examples\": []}\n{}", ":2: something follows the object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ex.json")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadExamples(path)
			if err == nil || !strings.Contains(err.Error(), "examples "+path+tc.want) {
				t.Errorf("error %v, want one beginning %q", err, "examples "+path+tc.want)
			}
			// A file that cannot be read is not overwritten either.
			if err := SaveExamples(path, []Example{example(Games, "gameId=b", "GAMES-MOD-003", 9)}); err == nil {
				t.Error("SaveExamples over a file that cannot be read succeeded")
			}
			if data, _ := os.ReadFile(path); string(data) != tc.text {
				t.Error("SaveExamples changed a file it could not read")
			}
		})
	}
	for _, empty := range []string{"", " \n"} {
		path := filepath.Join(t.TempDir(), "ex.json")
		os.WriteFile(path, []byte(empty), 0o644)
		if exs, err := LoadExamples(path); err != nil || exs != nil {
			t.Errorf("an empty file: %v, %v; want none", exs, err)
		}
	}
	if _, err := LoadExamples(t.TempDir()); err == nil || !strings.HasPrefix(err.Error(), "examples ") {
		t.Errorf("a directory: %v, want an error naming the file", err)
	}
}

// TestSaveExamplesFailedWrite checks that a write that fails leaves the
// previous file as it was, and no temporary file behind.
func TestSaveExamplesFailedWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "examples.json")
	if err := SaveExamples(path, []Example{example(Games, "gameId=a", "GAMES-MOD-003", 1)}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	saved := renameFile
	defer func() { renameFile = saved }()
	renameFile = func(string, string) error { return errors.New("disk full") }
	err := SaveExamples(path, []Example{example(Games, "gameId=b", "GAMES-MOD-003", 2)})
	if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v, want the rename's, naming the file", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the failed write changed the file")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the directory, want the examples alone", len(ents))
	}
	if err := SaveExamples(filepath.Join(dir, "no-such-dir", "x.json"), nil); err == nil {
		t.Error("saving into a directory that does not exist succeeded")
	}
}

func TestListingNamed(t *testing.T) {
	for _, l := range Listings {
		if got, ok := ListingNamed(l.String()); !ok || got != l {
			t.Errorf("ListingNamed(%q) = %v, %v", l, got, ok)
		}
	}
	if _, ok := ListingNamed("gmaes"); ok {
		t.Error("a listing named gmaes")
	}
	if q, err := (Example{Query: "a=1&a=2"}).Values(); err != nil || !slices.Equal(q["a"], []string{"1", "2"}) {
		t.Errorf("Values: %v, %v", q, err)
	}
}
