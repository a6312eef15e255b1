package generators

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	for _, tc := range lazyWorlds {
		t.Run(fmt.Sprintf("seed %d scale %v", tc.seed, tc.scale), func(t *testing.T) {
			eager, lazy := lazyPair(t, tc.seed, tc.scale)
			if lazy.Games != nil {
				t.Fatalf("a lazy world holds %d games", len(lazy.Games))
			}
			if eager.GameCount() != len(eager.Games) || lazy.GameCount() != len(eager.Games) {
				t.Fatalf("GameCount: %d in memory, %d lazy; want %d", eager.GameCount(), lazy.GameCount(), len(eager.Games))
			}
			var kept []*Game
			err := lazy.EachGame(context.Background(), func(g *Game) error {
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
				if got, want := RecordJSON(g), RecordJSON(&eager.Games[i]); !bytes.Equal(got, want) {
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
			err = lazy.EachGame(context.Background(), func(g *Game) error {
				if !bytes.Equal(RecordJSON(g), RecordJSON(&eager.Games[i])) {
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
			eager.EachGame(context.Background(), func(g *Game) error {
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
			err := w.EachGame(context.Background(), func(*Game) error {
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
			err = w.EachGame(ctx, func(*Game) error { n++; return nil })
			if !errors.Is(err, context.Canceled) || n != 0 {
				t.Errorf("cancelled: got %v after %d games, want context.Canceled before any", err, n)
			}
		})
	}
}

func TestLazyWorldGrowsAsTheInMemoryWorld(t *testing.T) {
	for _, tc := range lazyWorlds[:3] {
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
			if err := walked.EachGame(context.Background(), func(*Game) error { return nil }); err != nil {
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
			if err := cut.EachGame(context.Background(), func(*Game) error { return stop }); err != stop {
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

// onRowCall is one call of WriteOptions.OnRow, with the record encoded.
type onRowCall struct {
	listing        string
	offset         int64
	length         int
	rec            string
	recType, check string
}

func TestLazyFixturesAreTheInMemoryFixtures(t *testing.T) {
	for _, tc := range lazyWorlds[:3] {
		eager, lazy := lazyPair(t, tc.seed, tc.scale)
		for _, format := range []string{FormatJSON, FormatNDJSON, FormatAuto} {
			t.Run(fmt.Sprintf("seed %d scale %v %s", tc.seed, tc.scale, format), func(t *testing.T) {
				write := func(w *World) (map[string][]byte, []onRowCall) {
					dir := t.TempDir()
					var calls []onRowCall
					_, err := WriteFixtures(context.Background(), dir, w, WriteOptions{Format: format,
						OnRow: func(listing string, offset int64, length int, rec any) {
							calls = append(calls, onRowCall{listing: listing, offset: offset, length: length,
								rec: string(RecordJSON(rec)), recType: fmt.Sprintf("%T", rec)})
						}})
					if err != nil {
						t.Fatal(err)
					}
					return readDir(t, dir), calls
				}
				fe, ce := write(eager)
				fl, cl := write(lazy)
				if len(fe) != len(fl) {
					t.Fatalf("%d files in memory, %d lazy", len(fe), len(fl))
				}
				for name, want := range fe {
					if !bytes.Equal(fl[name], want) {
						t.Errorf("%s: the lazy world's file differs from the in-memory world's", name)
					}
				}
				if len(ce) != len(cl) {
					t.Fatalf("OnRow: %d calls in memory, %d lazy", len(ce), len(cl))
				}
				for i := range ce {
					if ce[i] != cl[i] {
						t.Fatalf("OnRow call %d: in memory %+v, lazy %+v", i, ce[i], cl[i])
					}
				}
				if format == FormatNDJSON {
					checkOnRow(t, fe, cl)
				} else if len(cl) > 0 {
					t.Errorf("OnRow called %d times for JSON files", len(cl))
				}
			})
		}
	}
}

// checkOnRow checks that the OnRow calls name every line of every NDJSON
// file, in order, with its offset and length, and a record whose JSON is the
// line.
func checkOnRow(t *testing.T, files map[string][]byte, calls []onRowCall) {
	t.Helper()
	types := map[string]string{
		ListingGames: "*generators.Game", ListingSnapshots: "*generators.CoreSnapshot",
		ListingKeyRotations: "*generators.EthereumKeyRotation", ListingNetworkParameters: "*generators.NetworkParameter",
		ListingTransactions: "*generators.Transaction",
	}
	byListing := map[string][]onRowCall{}
	for _, c := range calls {
		byListing[c.listing] = append(byListing[c.listing], c)
	}
	for _, listing := range Listings {
		data := files[listing+".ndjson"]
		lines := bytes.SplitAfter(data, []byte{'\n'})
		lines = lines[:len(lines)-1] // after the last newline
		got := byListing[listing]
		if len(got) != len(lines) || len(lines) == 0 {
			t.Fatalf("%s: %d OnRow calls for %d lines", listing, len(got), len(lines))
		}
		var offset int64
		for i, line := range lines {
			c := got[i]
			node := line[:len(line)-1]
			if c.offset != offset || c.length != len(node) {
				t.Fatalf("%s line %d: OnRow offset %d length %d, want %d and %d", listing, i, c.offset, c.length, offset, len(node))
			}
			if string(data[c.offset:c.offset+int64(c.length)]) != c.rec {
				t.Fatalf("%s line %d: the record's JSON is not the line:\n%s\n%s", listing, i, c.rec, node)
			}
			if c.recType != types[listing] {
				t.Fatalf("%s line %d: record of type %s, want %s", listing, i, c.recType, types[listing])
			}
			offset += int64(len(line))
		}
	}
}

func TestLazyGamesSpillFileIsRemoved(t *testing.T) {
	lazy, err := Generate(Options{Seed: 5, Scale: 0.05, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		run     func(dir string) error
		wantErr error
	}{
		{"success", func(dir string) error {
			_, err := WriteFixtures(context.Background(), dir, lazy, WriteOptions{Format: FormatNDJSON})
			return err
		}, nil},
		{"cancelled while the games are copied back", func(dir string) error {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			n := 0
			_, err := WriteFixtures(ctx, dir, lazy, WriteOptions{Format: FormatNDJSON,
				OnRow: func(listing string, _ int64, _ int, _ any) {
					if n++; listing == ListingGames && n == 50 {
						cancel()
					}
				}})
			return err
		}, context.Canceled},
		{"cancelled before", func(dir string) error {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			rw := &rowWriter{out: bufio.NewWriter(&bytes.Buffer{}), listing: ListingGames}
			return lazy.writeLazyGames(ctx, rw, dir)
		}, context.Canceled},
		{"the output fails", func(dir string) error {
			rw := &rowWriter{out: bufio.NewWriterSize(failingWriter{boom}, 16), listing: ListingGames, ndjson: true}
			return lazy.writeLazyGames(context.Background(), rw, dir)
		}, boom},
		{"the spill file cannot be made", func(dir string) error {
			rw := &rowWriter{out: bufio.NewWriter(&bytes.Buffer{}), listing: ListingGames}
			return lazy.writeLazyGames(context.Background(), rw, filepath.Join(dir, "missing"))
		}, os.ErrNotExist},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			err := tc.run(dir)
			if (tc.wantErr == nil) != (err == nil) || (tc.wantErr != nil && !errors.Is(err, tc.wantErr)) {
				t.Fatalf("got %v, want %v", err, tc.wantErr)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if strings.Contains(e.Name(), ".spill") || strings.HasSuffix(e.Name(), ".tmp") {
					t.Errorf("%s left behind", e.Name())
				}
			}
		})
	}
}

// failingWriter fails every write.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

func TestOnRowGameDecodesToTheGeneratedGame(t *testing.T) {
	eager, lazy := lazyPair(t, 5, 0.05)
	var got []Game
	_, err := WriteFixtures(context.Background(), t.TempDir(), lazy, WriteOptions{Format: FormatNDJSON,
		OnRow: func(listing string, _ int64, _ int, rec any) {
			if g, ok := rec.(*Game); ok {
				got = append(got, *g)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(eager.Games) {
		t.Fatalf("%d games, want %d", len(got), len(eager.Games))
	}
	want := map[GameKey][]byte{}
	for i := range eager.Games {
		g := &eager.Games[i]
		want[GameKey{g.Epoch, g.ID}] = RecordJSON(g)
	}
	for i := range got {
		g := &got[i]
		if g.Raw != nil {
			t.Fatalf("game %d handed over with Raw set", i)
		}
		if w, ok := want[GameKey{g.Epoch, g.ID}]; !ok || !bytes.Equal(RecordJSON(g), w) {
			t.Fatalf("game %d (epoch %d, %s) is not the generated game:\n%s\nwant\n%s", i, g.Epoch, g.ID, RecordJSON(g), w)
		}
		delete(want, GameKey{g.Epoch, g.ID})
	}
}
