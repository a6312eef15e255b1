//go:build !linux

package mockserver

import "time"

// threadCPU is unknown here: the benchmarks that use it time the wall
// clock instead.
func threadCPU() (time.Duration, bool) { return 0, false }
