package main

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/chaindata/harness/schemas"
)

// runSchemas lists the schemas, prints one definition or file, or prints the
// OpenAPI export: exit 0 on success, 2 on a usage error (an unknown schema
// name or file included).
func runSchemas(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "schemas", "[--long] [NAME | FILE.json] | --openapi")
	long := fs.Bool("long", false, "list each schema with its file and description")
	openapi := fs.Bool("openapi", false, "print an OpenAPI 3.0 document (JSON) of the five listings, built from the schemas")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *openapi {
		return printOpenAPI(e, fs, *long)
	}
	switch fs.NArg() {
	case 0:
		return listSchemas(e, *long)
	case 1:
		arg := fs.Arg(0)
		var data []byte
		var err error
		if strings.HasSuffix(arg, ".json") {
			data, err = schemas.File(arg)
		} else {
			data, err = schemas.Definition(arg)
		}
		if err != nil {
			// A name that is not a schema is a wrong command line, as
			// harness validate --schema treats it.
			return usageError(e.stderr, fs, "%v (run \"harness schemas\" for the list)", err)
		}
		e.stdout.Write(data)
		return exitOK
	default:
		return usageError(e.stderr, fs, "at most one schema name")
	}
}

// printOpenAPI writes the OpenAPI document; it takes no other argument.
func printOpenAPI(e *env, fs *flag.FlagSet, long bool) int {
	if fs.NArg() > 0 || long {
		return usageError(e.stderr, fs, "--openapi takes no other flag or argument")
	}
	data, err := schemas.OpenAPI()
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
