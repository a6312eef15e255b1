package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/chaindata/harness/schemas"
)

func runValidate(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "validate", "--schema NAME FILE... (\"-\" reads standard input; *.ndjson files hold one document per line)")
	name := fs.String("schema", "", "name of the schema to check against (see \"harness schemas\")")
	profileName := fs.String("profile", string(schemas.Reference),
		"how strictly to read the schemas: reference (what the mock writes: closed objects, every field the real network writes) or spec (only what the spec states)")
	ndjson := fs.Bool("ndjson", false, "treat every input as newline-delimited JSON, one document per line")
	quiet := fs.Bool("q", false, "print nothing for a valid input (only the violations)")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	if *name == "" {
		return usageError(e.stderr, fs, "--schema is required")
	}
	if !slices.Contains(schemas.Names(), *name) {
		return unknownSchema(e.stderr, fs.Name()+": --schema "+*name+": ", *name, false)
	}
	profile, err := schemas.ParseProfile(*profileName)
	if err != nil {
		return usageError(e.stderr, fs, "--profile: %v", err)
	}
	if fs.NArg() == 0 {
		return usageError(e.stderr, fs, "no input files (use - for standard input)")
	}
	v, err := schemas.LoadProfile(*name, profile)
	if err != nil {
		return usageError(e.stderr, fs, "%v", err)
	}
	code := exitOK
	for _, path := range fs.Args() {
		data, err := readInput(e, path)
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", path, err)
			code = exitFailure
			continue
		}
		lines := strings.HasSuffix(path, ".ndjson") || *ndjson
		ok, docs := checkDocument(e.stdout, v, path, data, lines)
		switch {
		case !ok:
			code = exitFailure
		case !*quiet:
			fmt.Fprintln(e.stdout, validLine(path, docs, lines, *name, profile))
		}
	}
	return code
}

// validLine says what was checked of a valid input: how many documents
// (for NDJSON), against which schema, in which profile.
func validLine(path string, docs int, lines bool, schema string, profile schemas.Profile) string {
	what := "valid"
	if lines {
		what = fmt.Sprintf("%d documents valid", docs)
		if docs == 1 {
			what = "1 document valid"
		}
	}
	return fmt.Sprintf("%s: %s (schema %s, profile %s)", path, what, schema, profile)
}

func readInput(e *env, path string) ([]byte, error) {
	if path == "-" {
		return io.ReadAll(e.stdin)
	}
	return os.ReadFile(path)
}

// checkDocument validates one input and prints one line per violation,
// prefixed with where it is, and followed by the profile when it is not the
// default. It reports whether the input is valid, and how many documents it
// held. The lines of NDJSON are validated on every core, in batches, and
// reported in input order.
func checkDocument(w io.Writer, v *schemas.Validator, path string, data []byte, lines bool) (bool, int) {
	if !lines {
		return report(w, path, v.Validate(data)), 1
	}
	ok, count := true, 0
	// A batch keeps memory bounded on huge inputs and output flowing; its
	// lines are views of data.
	const batch = 4096
	var docs [][]byte
	var where []int
	flush := func() {
		for i, err := range v.ValidateEach(docs) {
			if !report(w, fmt.Sprintf("%s:%d", path, where[i]), err) {
				ok = false
			}
		}
		docs, where = docs[:0], where[:0]
	}
	for n, rest := 1, data; len(rest) > 0; n++ {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		docs = append(docs, line)
		where = append(where, n)
		count++
		if len(docs) == batch {
			flush()
		}
	}
	flush()
	return ok, count
}

func report(w io.Writer, where string, err error) bool {
	if err == nil {
		return true
	}
	var verr *schemas.ValidationError
	if !errors.As(err, &verr) {
		fmt.Fprintf(w, "%s: %v\n", where, err)
		return false
	}
	suffix := ""
	if verr.Profile != schemas.Reference {
		suffix = fmt.Sprintf(" (profile %s)", verr.Profile)
	}
	for _, viol := range verr.Violations {
		fmt.Fprintf(w, "%s: %s%s\n", where, viol, suffix)
	}
	return false
}
