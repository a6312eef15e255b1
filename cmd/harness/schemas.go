package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/chaindata/harness/internal/suggest"
	"github.com/chaindata/harness/schemas"
)

// runSchemas lists the schemas, prints one definition or file, or prints the
// OpenAPI export: exit 0 on success, 2 on a usage error (an unknown schema
// name or file included).
func runSchemas(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "schemas", "[--long] [NAME | FILE.json] | --bundle | --openapi")
	long := fs.Bool("long", false, "list each schema with its file and description")
	bundle := fs.Bool("bundle", false, "print one draft-07 document holding every definition (each $ref within it)")
	openapi := fs.Bool("openapi", false, "print an OpenAPI 3.0 document (JSON) of the five listings, built from the schemas")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	switch {
	case *bundle && *openapi:
		return usageError(e.stderr, fs, "--bundle and --openapi are two documents: give one")
	case *bundle:
		return printDocument(e, fs, "--bundle", *long, schemas.Bundle)
	case *openapi:
		return printDocument(e, fs, "--openapi", *long, schemas.OpenAPI)
	}
	switch fs.NArg() {
	case 0:
		return listSchemas(e, *long)
	case 1:
		return printSchema(e, fs, fs.Arg(0))
	default:
		return usageError(e.stderr, fs, "at most one schema name")
	}
}

// printSchema writes one file as written (NAME.json), or one definition as
// a standalone draft-07 schema with every definition it needs bundled. An
// unknown name is a usage error.
func printSchema(e *env, fs *flag.FlagSet, arg string) int {
	if !knownSchema(arg) {
		return unknownSchema(e.stderr, fs.Name()+": ", arg, true)
	}
	var data []byte
	var err error
	if strings.HasSuffix(arg, ".json") {
		data, err = schemas.File(arg)
	} else {
		data, err = schemas.Standalone(arg)
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", fs.Name(), err)
		return exitFailure
	}
	e.stdout.Write(data)
	return exitOK
}

// knownSchema reports whether name is a definition, or NAME.json a
// schema file.
func knownSchema(name string) bool {
	if strings.HasSuffix(name, ".json") {
		return slices.Contains(schemas.Files(), name)
	}
	return slices.Contains(schemas.Names(), name)
}

// unknownSchema says, in two lines after prefix, that name is no schema
// (no schema file, for NAME.json when files are taken), which ones were
// probably meant, and how to list them all; it returns exitUsage.
func unknownSchema(w io.Writer, prefix, name string, files bool) int {
	what, known := "schema named", schemas.Names()
	if files && strings.HasSuffix(name, ".json") {
		what, known = "schema file", schemas.Files()
	}
	fmt.Fprintf(w, "%sno %s %q%s\n", prefix, what, name, suggest.Phrase(suggest.Nearest(name, known, 3), func(s string) string { return s }))
	fmt.Fprintln(w, `Run "harness schemas" to see all (--long with their files).`)
	return exitUsage
}

// printDocument writes a document built from every schema; its flag takes
// no other flag or argument.
func printDocument(e *env, fs *flag.FlagSet, flagName string, long bool, build func() ([]byte, error)) int {
	if fs.NArg() > 0 || long {
		return usageError(e.stderr, fs, "%s takes no other flag or argument", flagName)
	}
	data, err := build()
	if err != nil {
		fmt.Fprintf(e.stderr, "harness schemas: %v\n", err)
		return exitFailure
	}
	e.stdout.Write(data)
	return exitOK
}

func listSchemas(e *env, long bool) int {
	if !long {
		for _, name := range schemas.Names() {
			fmt.Fprintln(e.stdout, name)
		}
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, name := range schemas.Names() {
		n := schemas.MustLookup(name)
		fmt.Fprintf(tw, "%s\t%s\t%s\n", name, n.File, firstSentence(n.Description))
	}
	tw.Flush()
	return exitOK
}

func firstSentence(s string) string {
	if i := strings.Index(s, ". "); i >= 0 {
		return s[:i+1]
	}
	return s
}
