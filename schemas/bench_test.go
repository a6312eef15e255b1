package schemas_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/records"
	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/schemas"
)

// commandTypes maps every command kind with an example to the transaction
// type the block explorer gives it.
func commandTypes() map[string]string {
	types := map[string]string{"withdrawSubmission": "Withdraw"}
	for _, k := range detailedCommandKinds {
		types[k.kind] = k.txType
	}
	return types
}

// transactionsPage builds a ListTransactionsResponse of n transactions from
// the Transaction examples, each carrying one of the Command examples in
// turn, newest first.
func transactionsPage(b testing.TB, n int) []byte {
	b.Helper()
	types := commandTypes()
	var txs, commands []example
	for _, ex := range examples(b) {
		switch ex.def {
		case "Transaction":
			txs = append(txs, ex)
		case "Command":
			if _, ok := types[ex.variant]; !ok {
				b.Fatalf("%s: no transaction type for command kind %s", ex.file, ex.variant)
			}
			commands = append(commands, ex)
		}
	}
	if len(txs) < 2 || len(commands) < 12 {
		b.Fatalf("%d transaction and %d command examples, want at least 2 and 12", len(txs), len(commands))
	}
	page := make([]any, n)
	const newest = 45121000
	for i := range page {
		tx := cloneJSON(txs[i%len(txs)].doc).(map[string]any)
		cmd := commands[i%len(commands)]
		block, index := newest-i/4, i%4
		tx["command"] = cloneJSON(cmd.doc)
		tx["type"] = types[cmd.variant]
		tx["block"] = fmt.Sprint(block)
		tx["index"] = index
		tx["cursor"] = fmt.Sprintf("%d.%d", block, index)
		page[i] = tx
	}
	return encodeJSON(b, map[string]any{"transactions": page})
}

// networkParametersPage builds a ListNetworkParametersResponse of n rows from
// the rows of its example.
func networkParametersPage(b testing.TB, n int) []byte {
	b.Helper()
	doc := exampleDoc(b, "ListNetworkParametersResponse.json").(map[string]any)
	conn := doc["networkParameters"].(map[string]any)
	rows := conn["edges"].([]any)
	edges := make([]any, n)
	for i := range edges {
		edge := cloneJSON(rows[i%len(rows)]).(map[string]any)
		node := edge["node"].(map[string]any)
		node["key"] = fmt.Sprintf("%s_%d", node["key"], i)
		edge["cursor"] = fmt.Sprintf("%s%d", strings.TrimRight(edge["cursor"].(string), "="), i)
		edges[i] = edge
	}
	conn["edges"] = edges
	return encodeJSON(b, doc)
}

func TestBenchmarkDocumentsAreValid(t *testing.T) {
	tests := []struct {
		schema string
		doc    []byte
	}{
		{"ListTransactionsResponse", transactionsPage(t, 1000)},
		{"ListNetworkParametersResponse", networkParametersPage(t, 100)},
	}
	for _, tc := range tests {
		t.Run(tc.schema, func(t *testing.T) {
			if err := schemas.MustLoad(tc.schema).Validate(tc.doc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// BenchmarkValidateTransactionsResponse validates a page of 1000
// transactions mixing every command kind with an example.
func BenchmarkValidateTransactionsResponse(b *testing.B) {
	const n = 1000
	benchValidate(b, "ListTransactionsResponse", transactionsPage(b, n), n, "transactions/s")
}

// BenchmarkValidateNetworkParametersPage validates a page of 100 network
// parameters, a typical conformance suite request.
func BenchmarkValidateNetworkParametersPage(b *testing.B) {
	const n = 100
	benchValidate(b, "ListNetworkParametersResponse", networkParametersPage(b, n), n, "rows/s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
}

// benchValidate validates doc, a page of rows rows, against schema b.N
// times and reports rows per second in unit.
func benchValidate(b *testing.B, schema string, doc []byte, rows int, unit string) {
	b.Helper()
	v := schemas.MustLoad(schema)
	if err := v.Validate(doc); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := v.Validate(doc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), unit)
}

// BenchmarkGenerateThenValidate100k makes the 100,000 transactions of a
// world of scale 10 and validates them, side by side in one process, each
// timed in wall and CPU time (the process's, so the figures stay comparable
// when other work competes for the cores): on one core (GOMAXPROCS 1, one
// generator worker), then on every core. Beside them, on one core, the
// same transactions validated against the schema files as they were before
// the command kind was written keyed (testdata/verdicts/before: the oneOf
// gojsonschema tried kind by kind), and by santhosh-tekuri/jsonschema, the
// verdict test's second validator, over today's files. Run it with
// -benchtime 1x (make bench-schemas). The target: validation within twice
// the time generation takes.
func BenchmarkGenerateThenValidate100k(b *testing.B) {
	procs := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(procs)
	v := schemas.MustLoad("Transaction")
	before, err := schemas.LoadFiles(beforeFiles(b), schemas.Reference)
	if err != nil {
		b.Fatal(err)
	}
	other := newSecondValidator(b)
	for i := 0; i < b.N; i++ {
		type figure struct {
			what      string
			wall, cpu time.Duration
		}
		var figs []figure
		timed := func(what string, f func()) {
			runtime.GC()
			c0, w0 := processCPU(), time.Now()
			f()
			figs = append(figs, figure{what, time.Since(w0), processCPU() - c0})
		}
		var docs [][]byte
		generate := func(workers int) func() {
			return func() {
				docs = docs[:0]
				w, err := world.Generate(world.Options{Seed: 1, Scale: 10, Lazy: true, Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				err = w.EachTransaction(context.Background(), true, func(t *records.Transaction) error {
					docs = append(docs, append([]byte(nil), t.JSON...))
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		validateEach := func() {
			for i, err := range v.ValidateEach(docs) {
				if err != nil {
					b.Fatalf("transaction %d: %v", i, err)
				}
			}
		}
		runtime.GOMAXPROCS(1)
		timed("generate, one core", generate(1))
		if len(docs) != 100_000 {
			b.Fatalf("%d transactions, want 100,000", len(docs))
		}
		timed("validate, one core", validateEach)
		timed("validate, one core, schemas before", func() {
			for i, doc := range docs {
				if ok, err := before.Valid("Transaction", doc); !ok || err != nil {
					b.Fatalf("transaction %d: valid %v, %v", i, ok, err)
				}
			}
		})
		timed("validate, one core, santhosh-tekuri/jsonschema", func() {
			for i, doc := range docs {
				if !other.valid(b, "Transaction", doc) {
					b.Fatalf("transaction %d: invalid", i)
				}
			}
		})
		runtime.GOMAXPROCS(procs)
		timed(fmt.Sprintf("generate, %d cores", procs), generate(0))
		timed(fmt.Sprintf("validate, %d cores", procs), validateEach)
		fmt.Printf("\n%-52s %10s %10s %16s\n", "100,000 transactions", "wall", "CPU", "wall/generate")
		for _, f := range figs {
			base := figs[0].wall
			if strings.Contains(f.what, "cores") {
				base = figs[4].wall
			}
			fmt.Printf("%-52s %9.2fs %9.2fs %15.1fx\n", f.what, f.wall.Seconds(), f.cpu.Seconds(), f.wall.Seconds()/base.Seconds())
		}
		fmt.Printf("%-52s %9.1fx of generate, one core\n\n", fmt.Sprintf("validate, %d cores", procs), figs[5].wall.Seconds()/figs[0].wall.Seconds())
		b.ReportMetric(figs[1].wall.Seconds()/figs[0].wall.Seconds(), "validate/generate-1core")
		b.ReportMetric(figs[5].wall.Seconds()/figs[4].wall.Seconds(), "validate/generate-allcores")
		b.ReportMetric(figs[2].wall.Seconds()/figs[1].wall.Seconds(), "before/after-1core")
	}
}

// BenchmarkValidateTransactions compares, on one core, making the 10,000
// transactions of a world of scale 1 (generate) with validating them
// against Transaction (validate: the compiled fast path, which decides
// them all; gojsonschema: the same documents by gojsonschema alone, as
// Validate checked them before). An op is the 10,000; ns/tx is the wall
// time per transaction, cpu-ns/tx the process's CPU time (GC included),
// which other work on the machine changes less. The target: validate
// within twice generate.
func BenchmarkValidateTransactions(b *testing.B) {
	procs := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(procs)
	var docs [][]byte
	generate := func() {
		docs = docs[:0]
		w, err := world.Generate(world.Options{Seed: 1, Scale: 1, Lazy: true, Workers: 1})
		if err != nil {
			b.Fatal(err)
		}
		err = w.EachTransaction(context.Background(), true, func(t *records.Transaction) error {
			docs = append(docs, append([]byte(nil), t.JSON...))
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	generate()
	v := schemas.MustLoad("Transaction")
	perTx := map[string]float64{}
	run := func(name string, f func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			runtime.GC()
			b.ResetTimer()
			c0 := processCPU()
			for i := 0; i < b.N; i++ {
				f()
			}
			cpu := float64((processCPU() - c0).Nanoseconds()) / float64(b.N*len(docs))
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(docs)), "ns/tx")
			b.ReportMetric(cpu, "cpu-ns/tx")
			perTx[name] = cpu
		})
	}
	run("generate", generate)
	run("validate", func() {
		for i, doc := range docs {
			if err := v.Validate(doc); err != nil {
				b.Fatalf("transaction %d: %v", i, err)
			}
		}
	})
	run("gojsonschema", func() {
		for i, doc := range docs {
			if err := v.ValidateGojsonschema(doc); err != nil {
				b.Fatalf("transaction %d: %v", i, err)
			}
		}
	})
	if perTx["generate"] > 0 && perTx["validate"] > 0 {
		fmt.Printf("%d transactions, CPU time: generate %.0f ns/tx, validate %.0f ns/tx (%.2fx generate), gojsonschema alone %.0f ns/tx (%.2fx generate)\n",
			len(docs), perTx["generate"], perTx["validate"], perTx["validate"]/perTx["generate"],
			perTx["gojsonschema"], perTx["gojsonschema"]/perTx["generate"])
	}
}
