package agreement

import (
	"context"
	"runtime"
	"testing"

	"github.com/chaindata/harness/conformance/model"
	"github.com/chaindata/harness/mockserver/mocktest"
)

// BenchmarkModel builds the model of each listing of the default world
// (scale 1: 10,000 transactions) from an in-process mock, generates the
// default 300 queries and works out the oracle's answer to each. It
// reports the heap the models hold when all five are built (held-MiB),
// the figure the 256 MiB target is about.
func BenchmarkModel(b *testing.B) {
	srv, err := mocktest.Start(mocktest.Options{Seed: 1, Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	fetch := httpFetch(srv.URL)
	ctx := context.Background()
	for b.Loop() {
		var models []*model.Model
		for _, l := range model.Listings {
			m, err := model.Build(ctx, fetch, l, model.Options{})
			if err != nil {
				b.Fatal(err)
			}
			for _, q := range model.Generate(m, 1, 300) {
				m.Expect(q)
			}
			models = append(models, m)
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "held-MiB")
		runtime.KeepAlive(models)
	}
}
