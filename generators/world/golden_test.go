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
		{1, 0.05, "b35f304e8cf28cfc085311ab145baca3be22972084332d0d5506b440ec82351c"},
		{42, 1, "c592b25cb40bfb94435f28ab81ee38249439a27c251e6de030209cd74b972d95"},
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
