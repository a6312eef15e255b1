package generators

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func smallWorld(t *testing.T) *World {
	t.Helper()
	w, err := Generate(Options{Seed: 5, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// sameRecords compares every listing of two worlds, record by record.
func sameRecords(t *testing.T, a, b *World) {
	t.Helper()
	for _, listing := range Listings[:4] {
		var ra, rb []row
		a.eachRow(listing, func(r row) error { ra = append(ra, r); return nil })
		b.eachRow(listing, func(r row) error { rb = append(rb, r); return nil })
		if len(ra) != len(rb) {
			t.Fatalf("%s: %d rows, then %d", listing, len(ra), len(rb))
		}
		for i := range ra {
			if !bytes.Equal(ra[i].node, rb[i].node) || ra[i].cursor != rb[i].cursor {
				t.Fatalf("%s row %d differs:\n%s\n%s", listing, i, ra[i].node, rb[i].node)
			}
		}
	}
	var ta, tb []Transaction
	a.EachTransaction(context.Background(), false, func(tx *Transaction) error { ta = append(ta, *tx); return nil })
	b.EachTransaction(context.Background(), false, func(tx *Transaction) error { tb = append(tb, *tx); return nil })
	if len(ta) != len(tb) {
		t.Fatalf("transactions: %d, then %d", len(ta), len(tb))
	}
	for i := range ta {
		x, y := ta[i], tb[i]
		if !bytes.Equal(x.JSON, y.JSON) || x.Key() != y.Key() || x.Type != y.Type || x.Submitter != y.Submitter || x.Code != y.Code || strings.Join(x.Receivers, ",") != strings.Join(y.Receivers, ",") {
			t.Fatalf("transaction %d differs: %+v vs %+v", i, x.Key(), y.Key())
		}
	}
}

func TestFixturesRoundTrip(t *testing.T) {
	w := smallWorld(t)
	for _, format := range []string{FormatJSON, FormatNDJSON, FormatAuto} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			m, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: format})
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range Listings {
				want := l + "." + format
				if format == FormatAuto {
					want = l + ".json"
				}
				if m.Listings[l].File != want {
					t.Errorf("%s written to %s, want %s", l, m.Listings[l].File, want)
				}
			}
			back, err := ReadFixtures(dir)
			if err != nil {
				t.Fatal(err)
			}
			sameRecords(t, w, back)
			if back.LatestBlock != w.LatestBlock || back.LatestEpoch != w.LatestEpoch || back.FirstEpoch != w.FirstEpoch || !back.LatestBlockTime.Equal(w.LatestBlockTime) {
				t.Errorf("manifest: block %d epoch %d..%d, want %d epoch %d..%d", back.LatestBlock, back.FirstEpoch, back.LatestEpoch, w.LatestBlock, w.FirstEpoch, w.LatestEpoch)
			}
			info, err := os.Stat(filepath.Join(dir, m.Listings[ListingGames].File))
			if err != nil || info.Mode().Perm() != 0o644 {
				t.Errorf("fixture file mode %v, %v; want 0644", info.Mode().Perm(), err)
			}
		})
	}
}

func TestFixturesSwitchingFormatRemovesTheStaleFile(t *testing.T) {
	w := smallWorld(t)
	dir := t.TempDir()
	if _, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: FormatJSON}); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: FormatNDJSON}); err != nil {
		t.Fatal(err)
	}
	for _, l := range Listings {
		if _, err := os.Stat(filepath.Join(dir, l+".json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s.json still there after writing ndjson", l)
		}
	}
}

func TestInterruptedWriteLeavesPreviousFilesIntact(t *testing.T) {
	dir := t.TempDir()
	first := smallWorld(t)
	if _, err := WriteFixtures(context.Background(), dir, first, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := readDir(t, dir)

	other, err := Generate(Options{Seed: 6, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once the second listing has been written: the run stops part
	// way, with a listing of the new world in place but no new manifest.
	calls := 0
	_, err = WriteFixtures(ctx, dir, other, WriteOptions{Progress: func(done, total int) {
		calls++
		if calls == 2 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	after := readDir(t, dir)
	for name, data := range after {
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("temporary file %s left behind", name)
		}
		if old, ok := before[name]; !ok {
			t.Errorf("new file %s appeared", name)
		} else if name == ManifestFile && !bytes.Equal(old, data) {
			t.Error("the manifest changed although the run did not finish")
		}
	}
	// The files written before the interruption are complete and valid:
	// each is either the old or the new listing, never a half file.
	if _, err := ReadFixtures(dir); err != nil {
		t.Fatalf("fixtures unreadable after an interrupted run: %v", err)
	}
}

func TestFailedWriteLeavesPreviousFileIntact(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	if err := writeAtomic(path, func(out *bufio.Writer) error { _, err := out.WriteString("old\n"); return err }); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := writeAtomic(path, func(out *bufio.Writer) error {
		out.WriteString("half of the new conte")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the write's error", err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "old\n" {
		t.Errorf("file holds %q after a failed write, want the old content", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want only the original", len(entries))
	}
}

func TestReadFixturesReportsProblems(t *testing.T) {
	w := smallWorld(t)
	tests := []struct {
		name    string
		damage  func(dir string)
		wantErr string
	}{
		{"no manifest", func(dir string) { os.Remove(filepath.Join(dir, ManifestFile)) }, "manifest.json"},
		{"manifest not JSON", func(dir string) { os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644) }, "manifest"},
		{"unknown format version", func(dir string) {
			os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"formatVersion":9}`), 0o644)
		}, "formatVersion 9"},
		{"listing file missing", func(dir string) { os.Remove(filepath.Join(dir, "snapshots.json")) }, "snapshots.json"},
		{"listing file truncated", func(dir string) {
			p := filepath.Join(dir, "games.json")
			data, _ := os.ReadFile(p)
			os.WriteFile(p, data[:len(data)/2], 0o644)
		}, "games.json"},
		{"transaction without block", func(dir string) {
			os.WriteFile(filepath.Join(dir, "transactions.json"), []byte(`{"transactions":[{"index":0}]}`), 0o644)
		}, "transactions.json"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: FormatJSON}); err != nil {
				t.Fatal(err)
			}
			tc.damage(dir)
			_, err := ReadFixtures(dir)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want an error naming %q", err, tc.wantErr)
			}
		})
	}
}

func TestWriteFixturesRefusesUnknownFormat(t *testing.T) {
	_, err := WriteFixtures(context.Background(), t.TempDir(), smallWorld(t), WriteOptions{Format: "xml"})
	if !errors.Is(err, ErrBadOptions) {
		t.Fatalf("got %v, want ErrBadOptions", err)
	}
}

func readDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = data
	}
	return out
}
