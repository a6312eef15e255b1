package world

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/internal/race"
)

// lazyPair generates the same world twice, in memory and lazily.
func lazyPair(t *testing.T, seed int64, scale float64) (eager, lazy *World) {
	t.Helper()
	eager, err := Generate(Options{Seed: seed, Scale: scale})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err = Generate(Options{Seed: seed, Scale: scale, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	return eager, lazy
}

// raceShort is -short under the race detector: make test's third pass,
// where the tests run the generator's concurrent code on small worlds (make
// test's second pass runs them in full, without the detector).
func raceShort() bool { return testing.Short() && race.Enabled }

// someLazyWorlds returns the first n of lazyWorlds, or the two smallest
// (100 and 500 transactions) under -race -short.
func someLazyWorlds(n int) []struct {
	seed  int64
	scale float64
} {
	if raceShort() {
		n = min(n, 2)
	}
	return lazyWorlds[:n]
}

var lazyWorlds = []struct {
	seed  int64
	scale float64
}{
	{1, 0.01},
	{5, 0.05},
	{42, 0.3},
	{9, 1},
}

func TestLazyGamesAreTheInMemoryGames(t *testing.T) {
	for _, tc := range someLazyWorlds(len(lazyWorlds)) {
		t.Run(fmt.Sprintf("seed %d scale %v", tc.seed, tc.scale), func(t *testing.T) {
			eager, lazy := lazyPair(t, tc.seed, tc.scale)
			if lazy.Games != nil {
				t.Fatalf("a lazy world holds %d games", len(lazy.Games))
			}
			if eager.GameCount() != len(eager.Games) || lazy.GameCount() != len(eager.Games) {
				t.Fatalf("GameCount: %d in memory, %d lazy; want %d", eager.GameCount(), lazy.GameCount(), len(eager.Games))
			}
			var kept []*records.Game
			err := lazy.EachGame(context.Background(), func(g *records.Game) error {
				kept = append(kept, g)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if len(kept) != len(eager.Games) {
				t.Fatalf("EachGame gave %d games, want %d", len(kept), len(eager.Games))
			}
			// Compared after the walk: the games handed over may be kept.
			for i, g := range kept {
				if got, want := records.RecordJSON(g), records.RecordJSON(&eager.Games[i]); !bytes.Equal(got, want) {
					t.Fatalf("game %d differs:\n lazy %s\n want %s", i, got, want)
				}
				if i > 0 {
					p := kept[i-1]
					if p.Epoch > g.Epoch || (p.Epoch == g.Epoch && p.ID >= g.ID) {
						t.Fatalf("game %d (epoch %d, %s) comes after (epoch %d, %s): want epoch then ID ascending", i, g.Epoch, g.ID, p.Epoch, p.ID)
					}
				}
			}
			// A second walk makes the same games again.
			i := 0
			err = lazy.EachGame(context.Background(), func(g *records.Game) error {
				if !bytes.Equal(records.RecordJSON(g), records.RecordJSON(&eager.Games[i])) {
					return fmt.Errorf("second walk: game %d differs", i)
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// The in-memory world walks its own slice, in the same order.
			i = 0
			eager.EachGame(context.Background(), func(g *records.Game) error {
				if g != &eager.Games[i] {
					t.Fatalf("in memory: game %d is not World.Games[%d]", i, i)
				}
				i++
				return nil
			})
		})
	}
}

func TestEachGameStops(t *testing.T) {
	eager, lazy := lazyPair(t, 5, 0.05)
	boom := errors.New("boom")
	for _, w := range []*World{eager, lazy} {
		name := "in memory"
		if w.Games == nil {
			name = "lazy"
		}
		t.Run(name, func(t *testing.T) {
			n := 0
			err := w.EachGame(context.Background(), func(*records.Game) error {
				n++
				if n == 3 {
					return boom
				}
				return nil
			})
			if !errors.Is(err, boom) || n != 3 {
				t.Errorf("fn's error: got %v after %d games, want boom after 3", err, n)
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			n = 0
			err = w.EachGame(ctx, func(*records.Game) error { n++; return nil })
			if !errors.Is(err, context.Canceled) || n != 0 {
				t.Errorf("cancelled: got %v after %d games, want context.Canceled before any", err, n)
			}
		})
	}
}

func TestLazyWorldGrowsAsTheInMemoryWorld(t *testing.T) {
	for _, tc := range someLazyWorlds(3) {
		t.Run(fmt.Sprintf("seed %d scale %v", tc.seed, tc.scale), func(t *testing.T) {
			eager, lazy := lazyPair(t, tc.seed, tc.scale)
			ge, err := eager.Growth()
			if err != nil {
				t.Fatal(err)
			}
			gl, err := lazy.Growth()
			if err != nil {
				t.Fatal(err)
			}
			// Enough blocks to start three epochs: their games carry on
			// the totals of the world's latest epoch.
			n, err := ge.BlocksForEpochs(3)
			if err != nil {
				t.Fatal(err)
			}
			be, bl := nextBlocks(t, ge, n), nextBlocks(t, gl, n)
			games := 0
			for _, b := range be {
				games += len(b.Games)
			}
			if games == 0 {
				t.Fatal("no games in the new epochs: the test proves nothing")
			}
			if de, dl := blocksDigest(be), blocksDigest(bl); de != dl {
				t.Fatalf("%d blocks: in memory %s, lazy %s", n, de, dl)
			}
			// A second Growth of the lazy world reuses its totals.
			gl2, err := lazy.Growth()
			if err != nil {
				t.Fatal(err)
			}
			if d := blocksDigest(nextBlocks(t, gl2, n)); d != blocksDigest(be) {
				t.Fatalf("a second Growth of the lazy world differs: %s", d)
			}
			// A lazy world whose games were all made by EachGame (as the
			// mock's store does) grows from the totals that run reached.
			_, walked := lazyPair(t, tc.seed, tc.scale)
			if err := walked.EachGame(context.Background(), func(*records.Game) error { return nil }); err != nil {
				t.Fatal(err)
			}
			gw, err := walked.Growth()
			if err != nil {
				t.Fatal(err)
			}
			if d := blocksDigest(nextBlocks(t, gw, n)); d != blocksDigest(be) {
				t.Fatalf("Growth after EachGame differs: %s", d)
			}
			// An EachGame stopped early leaves nothing behind.
			_, cut := lazyPair(t, tc.seed, tc.scale)
			stop := errors.New("stop")
			if err := cut.EachGame(context.Background(), func(*records.Game) error { return stop }); err != stop {
				t.Fatalf("EachGame returned %v, want the error fn gave", err)
			}
			gc, err := cut.Growth()
			if err != nil {
				t.Fatal(err)
			}
			if d := blocksDigest(nextBlocks(t, gc, n)); d != blocksDigest(be) {
				t.Fatalf("Growth after a stopped EachGame differs: %s", d)
			}
		})
	}
}
