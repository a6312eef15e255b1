package store

import (
	"runtime"
	"testing"

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
