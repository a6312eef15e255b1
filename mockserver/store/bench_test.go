package store

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
)

// BenchmarkNewStore measures building the store of the benchmark world.
func BenchmarkNewStore(b *testing.B) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 10})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := New(w); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendBlock grows a store of the default world (scale 1) block by
// block and reports the time per block, making it included, and the memory
// the store keeps per block after a collection (heap-bytes/block), beside the
// JSON bytes of the rows added (row-bytes/block): growth costs what the rows
// cost, whatever the size of the store.
func BenchmarkAppendBlock(b *testing.B) {
	w, err := world.Generate(world.Options{Seed: 1, Scale: 1, Lazy: true})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(w)
	if err != nil {
		b.Fatal(err)
	}
	chain, err := NewChain(s, w, 0)
	if err != nil {
		b.Fatal(err)
	}
	rowBytes := func() int {
		return int(s.games.bytes() + s.snapshots.bytes() + s.rotations.bytes() + s.txs.bytes())
	}
	rows0 := rowBytes()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for b.Loop() {
		if err := chain.Advance(1); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(b.N), "heap-bytes/block")
	b.ReportMetric(float64(rowBytes()-rows0)/float64(b.N), "row-bytes/block")
	runtime.KeepAlive(w)
}

// BenchmarkAddRows adds one snapshot among the rows of a store of scale 1
// and of scale 10 (a hundred thousand transactions), taking it out again
// between: what a test waits for POST /harness/rows, the view of the
// store's row tables made again.
func BenchmarkAddRows(b *testing.B) {
	for _, scale := range []float64{1, 10} {
		b.Run(fmt.Sprintf("scale=%v", scale), func(b *testing.B) {
			w, err := world.Generate(world.Options{Seed: 1, Scale: scale, Lazy: true})
			if err != nil {
				b.Fatal(err)
			}
			s, err := New(w)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			sn := snapshot(w.LatestBlock/2 + 1)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.AddRows(records.ListingSnapshots, []any{&sn}, false); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				s.Reset()
				b.StartTimer()
			}
		})
	}
}

// BenchmarkAppendBlockWithRowsAdded is BenchmarkAppendBlock with a row added
// among the store's (the block goes on the view's newest end too) and with
// a transaction newer than the chain's newest block (the view is made again
// for each block).
func BenchmarkAppendBlockWithRowsAdded(b *testing.B) {
	for _, ahead := range []bool{false, true} {
		b.Run(fmt.Sprintf("ahead=%v", ahead), func(b *testing.B) {
			w, err := world.Generate(world.Options{Seed: 1, Scale: 1, Lazy: true})
			if err != nil {
				b.Fatal(err)
			}
			s, err := New(w)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			chain, err := NewChain(s, w, 0)
			if err != nil {
				b.Fatal(err)
			}
			sn := snapshot(w.LatestBlock/2 + 1)
			if err := s.AddRows(records.ListingSnapshots, []any{&sn}, false); err != nil {
				b.Fatal(err)
			}
			if ahead {
				tx := records.Transaction{Block: 1 << 62, Type: "Edge", Submitter: hexID("p"), JSON: []byte(`{}`)}
				if err := s.AddRows(records.ListingTransactions, []any{&tx}, false); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				if err := chain.Advance(1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
