package generators

import (
	"bufio"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestIsTempOf checks which names count as writeAtomic's temporary files for
// a file: exactly os.CreateTemp's ".NAME.<digits>.tmp", nothing looser.
func TestIsTempOf(t *testing.T) {
	tests := []struct {
		file string
		want bool
	}{
		{".games.json.123456789.tmp", true},
		{".games.json.0.tmp", true},
		{".games.json..tmp", false},            // no random part
		{".games.json.12a.tmp", false},         // not digits
		{".games.json.123.tmp.bak", false},     // not the suffix
		{".games.json.123.TMP", false},         // not the suffix
		{"games.json.123.tmp", false},          // no leading dot
		{".games.ndjson.123.tmp", false},       // another file's
		{".games.json.backup.123.tmp", false},  // a longer name
		{".xgames.json.123.tmp", false},        // a longer name
		{".games.json.-1.tmp", false},          // a sign
		{".games.json.123.tmp.123.tmp", false}, // not digits
		{"games.json", false},
	}
	for _, tc := range tests {
		if got := isTempOf(tc.file, "games.json"); got != tc.want {
			t.Errorf("isTempOf(%q, games.json) = %v, want %v", tc.file, got, tc.want)
		}
	}
	// The pattern writeAtomic gives os.CreateTemp makes names isTempOf
	// knows.
	dir := t.TempDir()
	f, err := os.CreateTemp(dir, tempPattern("games.json"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if !isTempOf(filepath.Base(f.Name()), "games.json") {
		t.Errorf("os.CreateTemp made %s, which isTempOf does not recognise", filepath.Base(f.Name()))
	}
}

// TestWriteFixturesRemovesStaleTemps leaves in a fixture directory what a
// killed run leaves (temporary files of every fixture name) beside other
// files, some of them look-alikes: writing fixtures into it removes the
// temporary files, and only them.
func TestWriteFixturesRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	var stale []string
	for i, name := range fixtureFiles() {
		stale = append(stale, "."+name+"."+string(rune('1'+i%9))+"2345.tmp")
	}
	kept := []string{"notes.txt", ".games.json.backup.tmp", ".games.json.x1.tmp", "games.json.123.tmp", ".other.json.123.tmp", ".record-state.json.5.tmp"}
	for _, name := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, ".manifest.json.99.tmp"), 0o755) // a directory is never removed
	kept = append(kept, ".manifest.json.99.tmp")

	if _, err := WriteFixtures(context.Background(), dir, smallWorld(t), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s is still there (%v)", name, err)
		}
	}
	for _, name := range kept {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s, not a temporary file of ours, is gone: %v", name, err)
		}
	}
}

// TestRemoveStaleTempsThenFailedWrite checks a failed write after the clean
// up still leaves the previous file whole, and no temporary file.
func TestRemoveStaleTempsThenFailedWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ManifestFile)
	if err := WriteFileAtomic(path, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "."+ManifestFile+".42.tmp"), []byte("half"), 0o644)
	if err := RemoveStaleTemps(dir, ManifestFile); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := writeAtomic(path, func(w *bufio.Writer) error { w.WriteString("new, half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("got %v, want the write's error", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old\n" {
		t.Errorf("%s holds %q after a failed write, want the old content", ManifestFile, got)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only %s", len(entries), ManifestFile)
	}
	if err := RemoveStaleTemps(filepath.Join(dir, "missing")); err == nil {
		t.Error("RemoveStaleTemps of a missing directory: no error")
	}
}
