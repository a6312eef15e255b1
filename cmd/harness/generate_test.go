package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/mockserver/store"
)

func TestGenerateWritesFixturesDeterministically(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, dir := range []string{a, b} {
		code, out, errOut := runCmd(t, "generate", "--seed", "9", "--scale", "0.05", "--out", dir)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if !strings.Contains(out, "transactions.json") {
			t.Errorf("output does not list the files: %s", out)
		}
		if errOut != "" {
			t.Errorf("no progress bar is drawn when stderr is not a terminal, got %q", errOut)
		}
	}
	entries, err := os.ReadDir(a)
	if err != nil || len(entries) != 7 {
		t.Fatalf("%d files written, want 6 and the index (%v)", len(entries), err)
	}
	// The index is up to date: serving does not rebuild it.
	st, info, err := store.OpenFixtures(a)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if info.Rebuilt != "" {
		t.Errorf("serving the fixtures rebuilt the index generate wrote: %s", info.Rebuilt)
	}
	// Every file is the same in both, the manifest and the index included.
	for _, e := range entries {
		x, _ := os.ReadFile(filepath.Join(a, e.Name()))
		y, _ := os.ReadFile(filepath.Join(b, e.Name()))
		if len(x) == 0 || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs with the same seed", e.Name())
		}
	}
}

func TestGenerateRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no out", []string{"generate"}, "--out is required"},
		{"scale too small", []string{"generate", "--out", dir, "--scale", "0"}, "--scale must be between"},
		{"scale too large", []string{"generate", "--out", dir, "--scale", "5000"}, "--scale must be between"},
		{"scale not a number", []string{"generate", "--out", dir, "--scale", "big"}, `--scale: "big" is not a number`},
		{"unknown format", []string{"generate", "--out", dir, "--format", "xml"}, "--format must be"},
		{"negative workers", []string{"generate", "--out", dir, "--workers", "-1"}, "--workers must not be negative"},
		{"stray argument", []string{"generate", "--out", dir, "extra"}, "unexpected argument"},
		{"unknown flag", []string{"generate", "--colour"}, "unknown flag --colour"},
		{"unknown world", []string{"generate", "--out", dir, "--world", "edgs"}, `--world: unknown world "edgs" (want default or edges); did you mean "edges"?`},
		{"unknown world, nothing near", []string{"generate", "--out", dir, "--world", "moon"}, `--world: unknown world "moon" (want default or edges)` + "\n"},
		{"edge world with a seed", []string{"generate", "--out", dir, "--world", "edges", "--seed", "2"}, "--world edges is one fixed world: it takes no --seed or --scale"},
		{"edge world with a scale", []string{"generate", "--out", dir, "--world", "edges", "--scale", "2"}, "--world edges is one fixed world"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantUsageError(t, tc.args, tc.want)
		})
	}
}

func TestGenerateIntoAFileFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(file, []byte("x"), 0o644)
	code, _, errOut := runCmd(t, "generate", "--scale", "0.05", "--out", file)
	if code != exitFailure || !strings.Contains(errOut, "harness generate:") {
		t.Fatalf("exit %d, stderr %q; want a clear failure", code, errOut)
	}
}
