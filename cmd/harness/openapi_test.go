package main

import (
	"context"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/chaindata/harness/schemas"
)

func TestSchemasOpenAPI(t *testing.T) {
	code, out, errOut := runCmd(t, "schemas", "--openapi")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want, err := schemas.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Error("harness schemas --openapi differs from schemas.OpenAPI()")
	}
	doc, err := openapi3.NewLoader().LoadFromData([]byte(out))
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	for _, p := range []string{"/api/v2/games", "/api/v2/snapshots", "/api/v2/core/keys/ethereum/rotations", "/api/v2/network/parameters", "/transactions"} {
		if doc.Paths.Value(p) == nil {
			t.Errorf("no path %s", p)
		}
	}
}

func TestSchemasOpenAPIUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"with a schema name", []string{"schemas", "--openapi", "Game"}},
		{"with --long", []string{"schemas", "--openapi", "--long"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if out != "" || !strings.Contains(errOut, "--openapi takes no other") {
				t.Errorf("stdout %q, stderr %q", out, errOut)
			}
		})
	}
}
