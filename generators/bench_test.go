package generators

import (
	"testing"

	"github.com/chaindata/harness/schemas"
)

// BenchmarkTransaction measures making one transaction on one core, in the
// steady state after the coverage prelude: the generator's hot loop.
func BenchmarkTransaction(b *testing.B) {
	w, err := Generate(Options{Seed: 7, Scale: 0.05})
	if err != nil {
		b.Fatal(err)
	}
	places := w.placeTransactions(b.N)
	c := newGenContext(newRNG(0), w.universe())
	command := schemas.MustLookup("Command")
	var bytes int64
	var t Transaction
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := w.makeTransaction(c, command, places[i], i, &t); err != nil {
			b.Fatal(err)
		}
		bytes += int64(len(t.JSON))
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "tx/s")
	b.ReportMetric(float64(bytes)/float64(b.N), "json-bytes/tx")
}

// BenchmarkGenerate measures building a whole world of scale 10 (100,000
// transactions).
func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Generate(Options{Seed: 1, Scale: 10}); err != nil {
			b.Fatal(err)
		}
	}
}
