package generators

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

// paramDefault is one row of the parameter table.
type paramDefault struct {
	key, kind, value string
}

var parameterTable = sync.OnceValue(func() []paramDefault {
	var rows []paramDefault
	for _, line := range strings.Split(networkParametersTSV, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.SplitN(line, "\t", 3)
		if len(parts) != 3 {
			continue
		}
		rows = append(rows, paramDefault{key: parts[0], kind: parts[1], value: parts[2]})
	}
	return rows
})

func defaultParameterKeys() []string {
	rows := parameterTable()
	keys := make([]string, len(rows))
	for i, r := range rows {
		keys[i] = r.key
	}
	return keys
}
