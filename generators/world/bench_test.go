package world

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/chaindata/harness/generators/records"
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
	c := newTxMaker(w.universe())
	command := schemas.MustLookup("Command")
	var bytes int64
	var t records.Transaction
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

// BenchmarkGenerateMillion makes a lazy world of a million transactions
// (scale 100) and reads every transaction once, as harness generate does. It
// reports transactions per second and, run alone (-bench GenerateMillion),
// the process's peak resident memory. Targets: under 60 s, under 2 GiB.
func BenchmarkGenerateMillion(b *testing.B) {
	for i := 0; i < b.N; i++ {
		w, err := Generate(Options{Seed: 1, Scale: 100, Lazy: true})
		if err != nil {
			b.Fatal(err)
		}
		var n, size int
		err = w.EachTransaction(context.Background(), true, func(t *records.Transaction) error {
			n++
			size += len(t.JSON)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if n != 1_000_000 {
			b.Fatalf("%d transactions, want a million", n)
		}
	}
	b.ReportMetric(float64(b.N)*1e6/b.Elapsed().Seconds(), "tx/s")
	if hwm := peakRSS(); hwm > 0 {
		b.ReportMetric(float64(hwm)/(1<<20), "peak-RSS-MiB")
	}
}

// peakRSS returns the process's peak resident set size in bytes, read from
// /proc (Linux); 0 elsewhere.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// BenchmarkGameEpochs makes the games of a world of scale 10 (about 11,000
// games over 1,250 epochs) lazily, encodes each into a reused buffer as
// fixtures.Write does, and reports games per second: the games' share of
// harness generate, which makes them on one core.
func BenchmarkGameEpochs(b *testing.B) {
	w, err := Generate(Options{Seed: 1, Scale: 10, Lazy: true})
	if err != nil {
		b.Fatal(err)
	}
	var n, size int
	var node []byte // reused, as fixtures.Write does
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		err := w.EachGame(context.Background(), func(g *records.Game) error {
			n++
			node = records.AppendRecordJSON(node[:0], g)
			size += len(node)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(size)/float64(n), "json-bytes/game")
}
