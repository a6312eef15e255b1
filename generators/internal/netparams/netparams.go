package netparams

import (
	_ "embed"
	"strings"
	"sync"
)

// networkParametersTSV lists the real network's parameter keys with their
// value types and defaults (key, type, default; tab-separated).
//
//go:embed data/network-parameters.tsv
var networkParametersTSV string

// Default is one row of the parameter table.
type Default struct {
	// Key is the parameter's key; Kind its value type (Decimal, Uint,
	// Int, JSON, String, Duration...); Value its default.
	Key, Kind, Value string
}

// Table returns the parameter table, in the file's order. It is parsed
// once; the caller must not change it.
func Table() []Default { return table() }

var table = sync.OnceValue(func() []Default {
	var rows []Default
	for _, line := range strings.Split(networkParametersTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		rows = append(rows, Default{Key: parts[0], Kind: parts[1], Value: parts[2]})
	}
	return rows
})

// Keys returns the table's keys, in its order.
func Keys() []string {
	rows := Table()
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.Key
	}
	return keys
}
