package generators

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// TestWorldsArePinned pins the bytes of a few worlds' fixture files, made in
// memory and lazily: a seed gives the same world on every release, whatever
// is made faster. The digests are sha256 over the
// lines `sha256sum` prints for the directory's files in name order. If a
// change to the generated data is deliberate, say so in its commit and
// update the digests.
func TestWorldsArePinned(t *testing.T) {
	tests := []struct {
		seed   int64
		scale  float64
		format string
		files  string // digest of the fixture files
		// long worlds are skipped with -short and under the race
		// detector (make test), which make them slow; go test
		// ./generators checks them.
		long bool
	}{
		{1, 0.05, FormatJSON, "9603d1944e760ac86ded7e95a30d2ecf1410179beefd8db3c1c0c57df3a1a0b9", false},
		{1, 0.05, FormatNDJSON, "48d74864e0adf7d1760b627b1a8011eeb0686cb13ecb2d646c368a3b40124118", false},
		{42, 1, FormatNDJSON, "12acf26b8762c00d46d8b7cfdae861c8f88b0f273abdd4456b803caecd3439f6", false},
		{42, 1, FormatJSON, "d699c818788970aabd3bc0b71187b4f17549940ca0f3c309bd02b8acf557ea97", true},
		{3, 10, FormatNDJSON, "576eeb456531fa1e5bd389c7ec290592d93deb980c70189161878aaa8427c05b", true},
	}
	for _, tc := range tests {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed %d scale %v %s lazy %v", tc.seed, tc.scale, tc.format, lazy), func(t *testing.T) {
				if tc.long && (testing.Short() || raceEnabled) {
					t.Skip("a large world: not with -short or -race")
				}
				w, err := Generate(Options{Seed: tc.seed, Scale: tc.scale, Lazy: lazy})
				if err != nil {
					t.Fatal(err)
				}
				dir := t.TempDir()
				if _, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: tc.format}); err != nil {
					t.Fatal(err)
				}
				if got := dirDigest(t, dir); got != tc.files {
					t.Errorf("fixture files: digest %s, pinned %s", got, tc.files)
				}
			})
		}
	}
}

// dirDigest is sha256 over the lines sha256sum prints for a directory's
// files, in name order.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(h, "%x  %s\n", sha256.Sum256(data), name)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// TestLiveChainsArePinned pins the first blocks a few worlds grow (enough
// for new epochs, whose games carry on the world's totals), in memory and
// lazy.
func TestLiveChainsArePinned(t *testing.T) {
	tests := []struct {
		seed   int64
		scale  float64
		blocks string // blocksDigest of the blocks that start three epochs
	}{
		{1, 0.05, "b35f304e8cf28cfc085311ab145baca3be22972084332d0d5506b440ec82351c"},
		{42, 1, "c592b25cb40bfb94435f28ab81ee38249439a27c251e6de030209cd74b972d95"},
	}
	for _, tc := range tests {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed %d scale %v lazy %v", tc.seed, tc.scale, lazy), func(t *testing.T) {
				w, err := Generate(Options{Seed: tc.seed, Scale: tc.scale, Lazy: lazy})
				if err != nil {
					t.Fatal(err)
				}
				g, err := w.Growth()
				if err != nil {
					t.Fatal(err)
				}
				n, err := g.BlocksForEpochs(3)
				if err != nil {
					t.Fatal(err)
				}
				if got := blocksDigest(nextBlocks(t, g, n)); got != tc.blocks {
					t.Errorf("%d blocks: digest %s, pinned %s", n, got, tc.blocks)
				}
			})
		}
	}
}
