package schemas_test

import (
	"fmt"
	"strings"
	"testing"

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
