package mockserver

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling thread has used (user and
// system), which a goroutine locked to its thread (runtime.LockOSThread)
// can difference: unlike the wall clock, it does not count the time the
// thread waited for a core on a loaded machine.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
