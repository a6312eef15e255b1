package world

import (
	"fmt"
	"testing"
)

// TestLiveChainsArePinned pins the first blocks a few worlds grow (enough
// for new epochs, whose games carry on the world's totals), in memory and
// lazy.
func TestLiveChainsArePinned(t *testing.T) {
	tests := []struct {
		seed   int64
		scale  float64
		blocks string // blocksDigest of the blocks that start three epochs
	}{
		{1, 0.05, "c01ae28970aa8c026430bb825d1b5bd32591cd3d010d17a7fdf73d3e941979de"},
		{42, 1, "d054c87f38445a17829644a2cbd2fd2a4c88e91952dd5b723c59a9809744f540"},
	}
	for _, tc := range tests {
		for _, lazy := range []bool{false, true} {
			t.Run(fmt.Sprintf("seed %d scale %v lazy %v", tc.seed, tc.scale, lazy), func(t *testing.T) {
				if tc.scale >= 1 && raceShort() {
					t.Skip("scale 1 under -race -short: the small world runs the same code under the detector; make test pins it without")
				}
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
