package main

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaindata/harness/generators/fixtures"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
)

// TestStaleTempsRemoved leaves in an output directory the temporary files a
// killed generate or record leaves (for generate: its generation directory
// and the games' spill file, in it or beside it as older versions left it),
// beside a file of the user's: the next run into the directory removes the
// temporary files of the files it writes, and keeps the rest.
func TestStaleTempsRemoved(t *testing.T) {
	st, err := store.New(mustWorld(t))
	if err != nil {
		t.Fatal(err)
	}
	mock := httptest.NewServer(mockserver.New(mockserver.Config{}, st))
	defer mock.Close()
	tests := []struct {
		name  string
		args  func(dir string) []string
		stale []string
	}{
		{"generate", func(dir string) []string {
			return []string{"generate", "--scale", "0.01", "--out", dir, "--quiet"}
		}, []string{".transactions.json.123.tmp", ".transactions.ndjson.7.tmp", ".games.json.99.tmp", ".manifest.json.4242.tmp",
			".games.31337.spill", ".harness-generate-8080/.games.5.spill", ".harness-generate-8080/games.json", ".harness-index.bin.3.tmp"}},
		{"record", func(dir string) []string {
			return []string{"record", "--from", mock.URL, "--out", dir, "--listings", "networkparameters", "--log-format", "none"}
		}, []string{".manifest.json.123.tmp", "..record-state.json.55.tmp"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			kept := []string{"README.txt", ".manifest.json.tmp", ".games.json.bak.tmp"}
			for _, name := range append(append([]string{}, tc.stale...), kept...) {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				if err := os.WriteFile(filepath.Join(dir, name), []byte("half a file"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if code, _, errOut := runCmd(t, tc.args(dir)...); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, name := range tc.stale {
				if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("stale %s is still there (%v)", name, err)
				}
			}
			for _, name := range kept {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					t.Errorf("%s is gone: %v", name, err)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, fixtures.ManifestFile)); err != nil {
				t.Errorf("no manifest written: %v", err)
			}
		})
	}
}

// mustWorld is a small generated world.
func mustWorld(t *testing.T) *world.World {
	t.Helper()
	w, err := world.Generate(world.Options{Seed: 2, Scale: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	return w
}
