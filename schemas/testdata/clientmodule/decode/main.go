// Command decode decodes documents the schemas accept (the valid values of
// every scalar and the hand-written example of every object, from the
// schema tests) into the types oapi-codegen and ogen generate for the same
// schemas, and checks that each decoded value encodes back to the
// document. It catches what the mock's pages may not hold: a value the
// schema allows that a generated type refuses (ogen's decimal.Decimal and
// "", for example).
//
// The cases come from cases_gen.go, which the generated-client test
// (schemas/clients_test.go) writes beside this file.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"harnessclients/jsondiff"
)

// decodeCase is one document and the generated types it must decode into.
type decodeCase struct {
	schema string
	doc    string
	oapi   func() any // a new value of oapi-codegen's type for the schema
	ogen   func() any // a new value of ogen's type for the schema
}

func main() {
	failed := 0
	for _, c := range cases {
		for _, client := range []struct {
			name string
			new  func() any
		}{{"oapi-codegen", c.oapi}, {"ogen", c.ogen}} {
			v := client.new()
			err := json.Unmarshal([]byte(c.doc), v)
			if err == nil {
				err = jsondiff.Same([]byte(c.doc), v)
			}
			if err != nil {
				failed++
				fmt.Fprintf(os.Stderr, "%s: %s %.120s: %v\n", client.name, c.schema, c.doc, err)
			}
		}
	}
	fmt.Printf("%d documents, %d decodings failed\n", len(cases), failed)
	if failed > 0 {
		os.Exit(1)
	}
}
