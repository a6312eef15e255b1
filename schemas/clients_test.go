package schemas_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chaindata/harness/generators/world"
	"github.com/chaindata/harness/mockserver"
	"github.com/chaindata/harness/mockserver/store"
	"github.com/chaindata/harness/schemas"
)

// The client generators the export is proven with, pinned by version and
// fetched through the Go module proxy by go run. They are not dependencies
// of the harness: they run in a temporary module of their own.
// docs/clients.md gives the same commands; a test compares them.
const (
	oapiCodegenTool = "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2"
	ogenTool        = "github.com/ogen-go/ogen/cmd/ogen@v1.24.0"
)

// clientCommands are the generator command lines, as a user types them,
// beside openapi.json (written by harness schemas --openapi).
var clientCommands = [][]string{
	{"go", "run", oapiCodegenTool, "-generate", "types,client", "-package", "oapiclient", "-o", "oapiclient/client.gen.go", "openapi.json"},
	{"go", "run", ogenTool, "--target", "ogenclient", "--package", "ogenclient", "--clean", "openapi.json"},
}

// clientModule is the go.mod of the temporary module the clients are
// generated into: the runtime libraries the generated code imports, at the
// versions the generators' own releases require.
const clientModule = `module harnessclients

go 1.26

require (
	github.com/go-faster/errors v0.8.0
	github.com/go-faster/jx v1.2.0
	github.com/oapi-codegen/runtime v1.8.0
	github.com/ogen-go/ogen v1.24.0
	go.opentelemetry.io/otel v1.45.0
	go.opentelemetry.io/otel/metric v1.45.0
	go.opentelemetry.io/otel/trace v1.45.0
)
`

// clientModuleDir holds the programs (walk, decode) and the package they
// share (jsondiff) that the test builds against the generated clients, in
// the layout of the temporary module.
const clientModuleDir = "testdata/clientmodule"

// TestGeneratedClientsWalkEveryListing generates the oapi-codegen and ogen
// clients from the export with each tool's default command, compiles them
// with the walk program, and walks every page of every listing of a mock
// on 127.0.0.1: every page is decoded into the generated types and must
// encode back to the body it came from, and each client must read every row
// the mock holds. Then the decode program decodes, with both clients, every
// valid palette value and every hand-written example of the schema tests,
// which hold values the mock's pages may not (an empty OptionalDecimal).
// A generator, a compilation, a walk or a decoding that fails fails the
// test.
//
// The first run downloads the tools and the runtime libraries through the
// module proxy and compiles everything (about four minutes on two cores);
// later runs take their binaries and packages from the Go build cache (the
// build uses -trimpath, so the temporary directory does not change the
// cache keys) and take seconds.
func TestGeneratedClientsWalkEveryListing(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: generates and compiles two Go clients with pinned tools from the module proxy (about four minutes the first time, seconds once cached)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	dir := t.TempDir()
	doc, err := schemas.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "openapi.json"), doc)
	writeFile(t, filepath.Join(dir, "go.mod"), []byte(clientModule))
	copyDir(t, clientModuleDir, dir)
	writeFile(t, filepath.Join(dir, "decode", "cases_gen.go"), decodeCases(t, doc))
	for _, sub := range []string{"oapiclient", "ogenclient"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}

	for _, cmd := range clientCommands {
		goCommand(ctx, t, dir, cmd[1:]...)
	}
	bin := filepath.Join(dir, "bin")
	goCommand(ctx, t, dir, "build", "-mod=mod", "-trimpath", "-o", bin+string(filepath.Separator), "./walk", "./decode")
	t.Logf("decode: %s", bytes.TrimSpace(runCommand(ctx, t, dir, filepath.Join(bin, "decode"))))

	w, err := world.Generate(world.Options{Seed: 1, Scale: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.New(w)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(mockserver.New(mockserver.Config{}, st))
	defer srv.Close()

	// A page of 7 rows makes every listing take several pages (the
	// smallest, snapshots and key rotations, have 50 rows).
	const pageSize = 7
	out := runCommand(ctx, t, dir, filepath.Join(bin, "walk"), "-base-url", srv.URL, "-page-size", fmt.Sprint(pageSize), "-timeout", "2m")
	var got map[string]map[string]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("walk output is not JSON: %v\n%s", err, out)
	}
	want := st.Counts()
	for _, client := range []string{"oapi-codegen", "ogen"} {
		counts, ok := got[client]
		if !ok {
			t.Errorf("%s: not walked: %s", client, out)
			continue
		}
		for listing, n := range want {
			if n <= pageSize {
				t.Errorf("%s: the mock holds %d rows, which fit one page of %d", listing, n, pageSize)
			}
			if counts[listing] != n {
				t.Errorf("%s read %d rows of %s, want the mock's %d", client, counts[listing], listing, n)
			}
		}
	}
}

// clientsPage is the page of the docs that shows how to generate a client.
const clientsPage = "docs/clients.md"

// TestREADMEGeneratesClientsAsTheTestDoes keeps the commands the docs give
// (clientsPage, which the README links to) for generating Go clients the ones
// the generated-client test runs.
func TestREADMEGeneratesClientsAsTheTestDoes(t *testing.T) {
	page, err := os.ReadFile("../" + clientsPage)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range clientCommands {
		line := strings.Join(cmd, " ")
		if !bytes.Contains(page, []byte(line)) {
			t.Errorf("%s does not give the command the test runs:\n%s", clientsPage, line)
		}
	}
	if !regexp.MustCompile(`(?m)^# Generate a client$`).Match(page) {
		t.Errorf(`%s has no "Generate a client" heading`, clientsPage)
	}
}

// goCommand runs the go command in dir and fails the test with its output
// when it fails.
func goCommand(ctx context.Context, t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	return runCommand(ctx, t, dir, "go", args...)
}

// runCommand runs a program in dir, outside any workspace, and returns its
// standard output; a failure fails the test with both outputs.
func runCommand(ctx context.Context, t *testing.T, dir, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("%s: %s", strings.Join(append([]string{filepath.Base(name)}, args...), " "), time.Since(start).Round(100*time.Millisecond))
	return stdout.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies the tree src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

// decodeCases writes the Go source of the decode program's cases: every
// valid value of every palette row and every example, for the schemas the
// generators make a type of (each names it after the component).
func decodeCases(t *testing.T, doc []byte) []byte {
	t.Helper()
	typed := typedComponents(t, doc)
	var b bytes.Buffer
	b.WriteString("// Code generated by schemas/clients_test.go. DO NOT EDIT.\n\npackage main\n\n")
	b.WriteString("import (\n\t\"harnessclients/oapiclient\"\n\t\"harnessclients/ogenclient\"\n)\n\n")
	b.WriteString("var cases = []decodeCase{\n")
	n := 0
	add := func(schema, value string) {
		if !typed[schema] {
			return
		}
		n++
		fmt.Fprintf(&b, "\t{%q, %q, func() any { return new(oapiclient.%s) }, func() any { return new(ogenclient.%s) }},\n",
			schema, value, schema, schema)
	}
	for _, row := range palette {
		for _, v := range row.valid {
			add(row.name, v)
		}
	}
	for _, ex := range examples(t) {
		add(ex.def, string(ex.raw))
	}
	b.WriteString("}\n")
	if n < 200 {
		t.Fatalf("only %d decode cases; the palette or the examples are not reached", n)
	}
	return b.Bytes()
}

// typedComponents returns the component schemas the operations reach
// through keywords generators read: a schema named only inside an x-
// extension (Url, in OptionalUrl's x-any-of) gets no type.
func typedComponents(t *testing.T, doc []byte) map[string]bool {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal(doc, &root); err != nil {
		t.Fatal(err)
	}
	components, _ := root["components"].(map[string]any)
	defs, _ := components["schemas"].(map[string]any)
	typed := map[string]bool{}
	var visit func(v any)
	visit = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name := strings.TrimPrefix(ref, "#/components/schemas/")
				if name != ref && !typed[name] {
					typed[name] = true
					visit(defs[name])
				}
			}
			for k, sub := range x {
				if !strings.HasPrefix(k, "x-") {
					visit(sub)
				}
			}
		case []any:
			for _, sub := range x {
				visit(sub)
			}
		}
	}
	visit(root["paths"])
	for _, k := range []string{"parameters", "headers", "responses"} {
		visit(components[k])
	}
	return typed
}
