package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/chaindata/harness/conformance"
	suitereport "github.com/chaindata/harness/conformance/report"
)

// runReport turns the JSON report of a conform run (--json-report) into
// what a CI job shows: a Markdown summary (GitHub's job summary), GitHub
// workflow commands (annotations) and step outputs. Exit 0 when the
// report was read and written, whatever its verdict (conform's own exit
// code says that); 1 when it could not be; 2 on a usage error.
func runReport(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "report", "[--markdown FILE] [--github-annotations] [--github-output FILE] [--waivers FILE] REPORT.json")
	markdown := fs.String("markdown", "", "append the Markdown summary to `FILE` (\"-\": standard output; the default when no other output is asked)")
	annotations := fs.Bool("github-annotations", false, "print GitHub Actions annotations (::error for each failed rule) on standard output")
	outputs := fs.String("github-output", "", "append the verdict and counts as key=value lines to `FILE` (GitHub's $GITHUB_OUTPUT)")
	waivers := fs.String("waivers", "", "the waiver `FILE` the run was given: list the waivers that expired or excused nothing")
	if code := parseFlags(fs, args); code >= 0 {
		return code
	}
	switch {
	case fs.NArg() == 0:
		return usageError(e.stderr, fs, "no report: give the JSON report harness conform --json-report wrote")
	case fs.NArg() > 1:
		return usageError(e.stderr, fs, "unexpected argument %q: give one report", fs.Arg(1))
	}
	if *markdown == "" && !*annotations && *outputs == "" {
		*markdown = "-"
	}
	s, err := conformance.ReadJSONReport(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(e.stderr, "harness report: %v\n", err)
		return exitFailure
	}
	if *waivers != "" {
		ws, err := conformance.LoadWaivers(*waivers)
		if err != nil {
			return usageError(e.stderr, fs, "%v", err)
		}
		s.ExpiredWaivers = conformance.ExpiredWaivers(ws, s.Started)
		s.UnmatchedWaivers = suitereport.FindUnmatchedWaivers(ws, s.Rules, s.Started)
	}
	steps := []struct {
		path  string
		write func(io.Writer, *suitereport.Summary) error
	}{
		{*markdown, suitereport.WriteMarkdown},
		{*outputs, suitereport.WriteOutputs},
	}
	if *annotations {
		steps = append(steps, struct {
			path  string
			write func(io.Writer, *suitereport.Summary) error
		}{"-", suitereport.WriteAnnotations})
	}
	for _, step := range steps {
		if step.path == "" {
			continue
		}
		if err := appendTo(e, step.path, func(w io.Writer) error { return step.write(w, s) }); err != nil {
			fmt.Fprintf(e.stderr, "harness report: %v\n", err)
			return exitFailure
		}
	}
	return exitOK
}

// appendTo appends what write writes to the file at path, in one write
// (the file is created when missing), or to standard output for "-".
func appendTo(e *env, path string, write func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		return err
	}
	if path == "-" {
		_, err := e.stdout.Write(buf.Bytes())
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		f.Close()
		return fmt.Errorf("append to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("append to %s: %w", path, err)
	}
	return nil
}
