package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLayoutImportsFlowOneWay holds the import diagram of
// docs/development.md to go list: every package with Go code is in it, each
// names exactly the module's packages it imports, and each imports only
// packages above it, so that imports flow one way.
func TestLayoutImportsFlowOneWay(t *testing.T) {
	const module = "github.com/chaindata/harness/"
	doc, err := os.ReadFile(filepath.Join(moduleRoot, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	diagram := layoutDiagram(t, doc)
	out, err := exec.Command(goTool(), "list", "-f", "{{.ImportPath}}|{{join .Imports \",\"}}|{{len .GoFiles}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	place := map[string]int{}
	for i, e := range diagram {
		for _, p := range e.pkgs {
			place[p] = i
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		pkg := strings.TrimPrefix(f[0], module)
		if f[2] == "0" {
			continue // tests alone
		}
		at, ok := place[pkg]
		if !ok {
			t.Errorf("docs/development.md: %s is not in the import diagram", pkg)
			continue
		}
		var imports []string
		for _, imp := range strings.Split(f[1], ",") {
			if strings.HasPrefix(imp, module) {
				imports = append(imports, strings.TrimPrefix(imp, module))
			}
		}
		named := diagram[at].imports
		for _, imp := range imports {
			if i, ok := place[imp]; ok && i >= at {
				t.Errorf("%s imports %s, which is not above it in the diagram", pkg, imp)
			}
			if !slices.ContainsFunc(named, func(n string) bool { return namesPackage(n, imp) }) {
				t.Errorf("docs/development.md: %s imports %s, which its line does not name (%s)", pkg, imp, strings.Join(named, ", "))
			}
		}
		for _, n := range named {
			if !slices.ContainsFunc(imports, func(imp string) bool { return namesPackage(n, imp) }) {
				t.Errorf("docs/development.md: %s's line names %s, which it does not import", pkg, n)
			}
		}
	}
}

// diagramLine is a line of the import diagram: packages and what they
// import, in the diagram's short names.
type diagramLine struct{ pkgs, imports []string }

// layoutDiagram reads the text block of docs/development.md that follows
// "Imports point one way": a line per package (or group), its imports in
// brackets, continued on indented lines.
func layoutDiagram(t *testing.T, doc []byte) []diagramLine {
	t.Helper()
	i := bytes.Index(doc, []byte("Imports point one way"))
	if i < 0 {
		t.Fatal(`docs/development.md has no "Imports point one way"`)
	}
	s := bufio.NewScanner(bytes.NewReader(doc[i:]))
	var out []diagramLine
	var in bool
	var text string
	flush := func() {
		if text == "" {
			return
		}
		open := strings.IndexByte(text, '(')
		close := strings.LastIndexByte(text, ')')
		if open < 0 || close < open {
			t.Fatalf("diagram line without its imports in brackets: %q", text)
		}
		var l diagramLine
		for _, p := range strings.Split(text[:open], ",") {
			l.pkgs = append(l.pkgs, strings.TrimSpace(p))
		}
		if inner := text[open+1 : close]; inner != "none" {
			for _, p := range strings.Split(inner, ",") {
				l.imports = append(l.imports, strings.TrimSpace(p))
			}
		}
		out = append(out, l)
		text = ""
	}
	for s.Scan() {
		line := s.Text()
		switch {
		case !in && strings.HasPrefix(line, "```text"):
			in = true
		case in && strings.HasPrefix(line, "```"):
			flush()
			return out
		case in && strings.HasPrefix(line, " "):
			text += " " + strings.TrimSpace(line)
		case in:
			flush()
			text = line
		}
	}
	t.Fatal("docs/development.md: the import diagram's block does not end")
	return nil
}

// namesPackage reports whether a short name of the diagram names package
// pkg: the path itself, its last elements ("records"), or a folder's
// packages ("deployment/*").
func namesPackage(name, pkg string) bool {
	if prefix, ok := strings.CutSuffix(name, "/*"); ok {
		return strings.HasPrefix(pkg, prefix+"/")
	}
	return pkg == name || strings.HasSuffix(pkg, "/"+name)
}
