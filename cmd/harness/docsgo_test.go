package main

// The Go snippets of the docs that use mocktest are a client's test files:
// each must be complete (its package clause and imports), follow the go.mod
// block a client module needs (its require of the harness and the replace
// by a checkout), and compile and pass as that module's tests.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// harnessModule is the harness's module path.
const harnessModule = "github.com/chaindata/harness"

// goSnippet is a Go block of the docs that uses mocktest, with the go.mod
// block before it in its file.
type goSnippet struct {
	code, goMod docBlock
}

// mocktestSnippets returns the Go blocks of blocks that use mocktest, each
// with the go.mod block before it, and a problem for each that is not
// complete or has no go.mod block.
func mocktestSnippets(blocks []docBlock) ([]goSnippet, []string) {
	var out []goSnippet
	var problems []string
	goMod := map[string]docBlock{} // the latest go.mod block, by file
	for _, b := range blocks {
		switch {
		case b.info == "go.mod":
			goMod[b.file] = b
		case b.info == "go" && strings.Contains(strings.Join(b.body, "\n"), "mocktest"):
			m, ok := goMod[b.file]
			if p := snippetProblem(b, m, ok); p != "" {
				problems = append(problems, b.String()+": "+p)
				continue
			}
			out = append(out, goSnippet{code: b, goMod: m})
		}
	}
	return out, problems
}

var (
	packageRE = regexp.MustCompile(`(?m)^package [a-z][a-z0-9_]*$`)
	importRE  = regexp.MustCompile(`(?m)^\t"` + regexp.QuoteMeta(harnessModule) + `/mockserver/mocktest"$`)
	requireRE = regexp.MustCompile(`(?m)^require ` + regexp.QuoteMeta(harnessModule) + ` v\S+$`)
	replaceRE = regexp.MustCompile(`(?m)^replace ` + regexp.QuoteMeta(harnessModule) + ` => (\S+)$`)
)

// snippetProblem says what keeps a mocktest snippet from being a client's
// test file ("" when nothing does).
func snippetProblem(code, goMod docBlock, hasGoMod bool) string {
	body := strings.Join(code.body, "\n")
	switch {
	case !packageRE.MatchString(body):
		return "a Go block that uses mocktest must be a whole file: it has no package clause"
	case !importRE.MatchString(body):
		return "a Go block that uses mocktest must import " + harnessModule + "/mockserver/mocktest"
	case !hasGoMod:
		return "no ```go.mod block comes before it in its file: show the require and replace a client module needs"
	}
	mod := strings.Join(goMod.body, "\n")
	if !requireRE.MatchString(mod) || !replaceRE.MatchString(mod) {
		return fmt.Sprintf("the go.mod block at %s must require %s and replace it with a checkout", goMod, harnessModule)
	}
	return ""
}

// TestDocGoSnippets compiles and runs each Go snippet of the docs that uses
// mocktest as the test of a client module made of the go.mod block before
// it: its replace pointing at this checkout, and the harness's go.sum, so
// that no module is fetched.
func TestDocGoSnippets(t *testing.T) {
	blocks, err := readDocBlocks(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	snippets, problems := mocktestSnippets(blocks)
	for _, p := range problems {
		t.Error(p)
	}
	if len(snippets) == 0 {
		t.Fatal("the docs have no Go snippet that uses mocktest")
	}
	if testing.Short() {
		t.Skip("compiles a client module of each snippet")
	}
	root, err := filepath.Abs(moduleRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snippets {
		t.Run(s.code.String(), func(t *testing.T) {
			dir := clientModule(t, s, root)
			cmd := exec.Command(goTool(), "test", "-count=1", "./...")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go test of the snippet at %s, in a module of the go.mod at %s: %v\n%s", s.code, s.goMod, err, out)
			}
		})
	}
}

// clientModule writes a client module of a snippet into a temporary
// directory and returns it.
func clientModule(t *testing.T, s goSnippet, root string) string {
	t.Helper()
	dir := t.TempDir()
	mod := replaceRE.ReplaceAllString(strings.Join(s.goMod.body, "\n")+"\n", "replace "+harnessModule+" => "+filepath.ToSlash(root))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	code := []byte(strings.Join(s.code.body, "\n") + "\n")
	name := "snippet.go"
	if bytes.Contains(code, []byte("*testing.T")) {
		name = "snippet_test.go"
	}
	for file, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum, name: code} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestMocktestSnippetRules checks what makes a mocktest snippet complete.
func TestMocktestSnippetRules(t *testing.T) {
	const goMod = "```go.mod\nmodule x\n\nrequire github.com/chaindata/harness v0.0.0\n\nreplace github.com/chaindata/harness => ../harness\n```\n"
	const whole = "```go\npackage x_test\n\nimport (\n\t\"testing\"\n\n\t\"github.com/chaindata/harness/mockserver/mocktest\"\n)\n\nfunc TestX(t *testing.T) { mocktest.New(t, mocktest.Options{}) }\n```\n"
	tests := []struct {
		name, md string
		snippets int
		problem  string
	}{
		{"a whole file after its go.mod", goMod + whole, 1, ""},
		{"no go.mod", whole, 0, "no ```go.mod block comes before it"},
		{"the go.mod after it", whole + goMod, 0, "no ```go.mod block"},
		{"a fragment", goMod + "```go\nsrv := mocktest.New(t, mocktest.Options{})\n```\n", 0, "no package clause"},
		{"no import", goMod + "```go\npackage x\n\nvar _ = mocktest.New\n```\n", 0, "must import"},
		{"a go.mod without replace", strings.Replace(goMod, "replace", "// replace", 1) + whole, 0, "must require"},
		{"Go without mocktest", "```go\nx := 1\n```\n", 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			blocks, err := parseBlocks("x.md", tc.md)
			if err != nil {
				t.Fatal(err)
			}
			got, problems := mocktestSnippets(blocks)
			if len(got) != tc.snippets || (tc.problem == "") != (len(problems) == 0) ||
				(tc.problem != "" && !strings.Contains(problems[0], tc.problem)) {
				t.Errorf("%d snippets, problems %q; want %d, %q", len(got), problems, tc.snippets, tc.problem)
			}
		})
	}
}
