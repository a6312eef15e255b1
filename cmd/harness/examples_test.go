package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaindata/harness/conformance/config"
)

// TestConformExamplesFileErrors: an examples file that cannot be read or
// parsed is a usage error that names the file and the line, before any
// request.
func TestConformExamplesFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "examples.json")
	if err := os.WriteFile(bad, []byte("{\"examples\": [\n  {\"listing\": \"gmaes\", \"query\": \"\", \"rule\": \"X\"}\n]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"a listing of no API", bad, "examples " + bad + `:2: example 1: listing "gmaes" is none of the API's`},
		{"a directory", dir, "examples " + dir + ": read " + dir + ": is a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The port is closed: the file is refused before any request.
			out, _ := wantUsageError(t, []string{"conform", "--base-url", "http://127.0.0.1:1", "--examples", tc.file}, tc.want)
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
	// The file named by the environment is refused alike.
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return map[string]string{config.EnvExamples: bad}[k] }}
	if code := run(context.Background(), e, []string{"conform", "--base-url", "http://127.0.0.1:1"}); code != exitUsage || !strings.Contains(errOut.String(), "examples "+bad+":2:") {
		t.Errorf("%s=%s: exit %d, stderr %q", config.EnvExamples, bad, code, errOut.String())
	}
}
