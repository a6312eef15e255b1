package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// availableMemory returns the memory this process may still use on Linux:
// MemAvailable of /proc/meminfo, or less when the process's cgroup (v2 or
// v1, as mounted at /sys/fs/cgroup in a container) has a limit. ok is false
// when MemAvailable cannot be read (not Linux): then nothing is refused.
func availableMemory() (bytes uint64, ok bool) { return availableMemoryIn("/") }

// availableMemoryIn is availableMemory with the files under root, for
// tests.
func availableMemoryIn(root string) (uint64, bool) {
	avail, ok := meminfoAvailable(filepath.Join(root, "proc/meminfo"))
	if !ok {
		return 0, false
	}
	if free, ok := cgroupFree(filepath.Join(root, "sys/fs/cgroup")); ok && free < avail {
		avail = free
	}
	return avail, true
}

// meminfoAvailable reads MemAvailable (in kB) from a meminfo file.
func meminfoAvailable(path string) (uint64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 3 && f[0] == "MemAvailable:" && f[2] == "kB" {
			kb, err := strconv.ParseUint(f[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// cgroupFree returns what a cgroup's memory limit leaves: the limit, less
// the usage, plus the inactive file cache the kernel reclaims before it
// kills anything (as docker stats and the kubelet count a working set). ok
// is false when there is no cgroup file to read or no limit.
func cgroupFree(dir string) (uint64, bool) {
	for _, v := range []struct{ limit, usage, stat, inactive string }{
		{"memory.max", "memory.current", "memory.stat", "inactive_file"},                                              // v2
		{"memory/memory.limit_in_bytes", "memory/memory.usage_in_bytes", "memory/memory.stat", "total_inactive_file"}, // v1
	} {
		limit, ok := readUint(filepath.Join(dir, v.limit))
		if !ok {
			continue
		}
		if limit >= 1<<60 { // v1 writes "no limit" as a number near 2^63
			return 0, false
		}
		usage, ok := readUint(filepath.Join(dir, v.usage))
		if !ok {
			return 0, false
		}
		if inactive, ok := statValue(filepath.Join(dir, v.stat), v.inactive); ok && inactive <= usage {
			usage -= inactive
		}
		if usage >= limit {
			return 0, true
		}
		return limit - usage, true
	}
	return 0, false
}

// readUint reads a file holding one number; "max" (v2's no limit) is not one.
func readUint(path string) (uint64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(raw)), 10, 64)
	return n, err == nil
}

// statValue reads one "key value" line of a cgroup memory.stat file.
func statValue(path, key string) (uint64, bool) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(raw), "\n") {
		k, v, ok := strings.Cut(line, " ")
		if ok && k == key {
			n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// formatBytes writes a memory size for people: "4.2 GiB", "310 MiB".
func formatBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	default:
		return fmt.Sprintf("%d KiB", n>>10)
	}
}
