package main

import (
	"context"
	"fmt"
)

func notYet(name string) func(context.Context, *env, []string) int {
	return func(_ context.Context, e *env, _ []string) int {
		fmt.Fprintf(e.stderr, "harness %s: not built yet\n", name)
		return exitFailure
	}
}

var (
	runRecord = notYet("record")
	runProxy  = notYet("proxy")
)
