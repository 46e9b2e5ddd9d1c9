package main

import (
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// Above this share of the limit the guard looks every fastTick; below it, every slowTick.
const (
	watchShare = 0.5
	slowTick   = 100 * time.Millisecond
	fastTick   = 2 * time.Millisecond
	// Past the limit, processes are ended until what is left would fit in this share of it.
	targetShare = 0.9
	pageSize    = 4096
)

// mainPid is the main process, spared while any other process is left to end (0: none).
var mainPid atomic.Int64

// guardMemory keeps the computer's processes under limit bytes together. gVisor has no
// out-of-memory killer: past the host cgroup's limit the host kills the sandbox itself, every
// process and its memory with it. The host limit has headroom over limit, so ending the largest
// process here (as Linux's OOM killer would, sparing the main process while others are left)
// keeps the computer up. Runs for the agent's life.
func guardMemory(limit uint64) {
	for {
		used, ok := usedMemory()
		switch {
		case ok && used > limit:
			killLargest(used, limit)
			time.Sleep(fastTick)
		case ok && float64(used) > watchShare*float64(limit):
			time.Sleep(fastTick)
		default:
			time.Sleep(slowTick)
		}
	}
}

// meminfo is read into the same buffer every tick: the guard makes no garbage while all is well.
var meminfo = make([]byte, 8192)

// usedMemory is what /proc/meminfo says the sandbox's processes use (gVisor's own accounting).
func usedMemory() (uint64, bool) {
	fd, err := syscall.Open("/proc/meminfo", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := syscall.Read(fd, meminfo)
	syscall.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	total, okTotal := kibField(meminfo[:n], "MemTotal:")
	available, okAvailable := kibField(meminfo[:n], "MemAvailable:")
	if !okTotal || !okAvailable || total == 0 || available > total {
		return 0, false
	}
	return total - available, true
}

// kibField is the value of a "Name:   123 kB" line of /proc/meminfo, in bytes.
func kibField(text []byte, name string) (uint64, bool) {
	at := bytes.Index(text, []byte(name))
	if at < 0 {
		return 0, false
	}
	rest := bytes.TrimLeft(text[at+len(name):], " ")
	end := bytes.IndexAny(rest, " \n")
	if end < 0 {
		return 0, false
	}
	kib, err := strconv.ParseUint(string(rest[:end]), 10, 64)
	return kib << 10, err == nil
}

type process struct {
	pid      int
	resident uint64
	name     string
}

// killLargest ends the largest processes, as many as it takes at once: the processes that pushed
// memory past the limit are still allocating, and the agent may wait a while for its next turn.
func killLargest(used, limit uint64) {
	target := uint64(targetShare * float64(limit))
	seen := used
	for _, v := range processes() {
		if used <= target {
			return
		}
		fmt.Fprintf(os.Stderr, "hearth-agent: processes use %d MiB, over the limit of %d MiB; killing %d (%s, %d MiB)\n",
			seen>>20, limit>>20, v.pid, v.name, v.resident>>20)
		_ = syscall.Kill(v.pid, syscall.SIGKILL)
		used -= min(used, max(v.resident, 1<<20))
	}
}

// processes are every process but the agent, largest first, the main process last.
func processes() []process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var list []process
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == 1 {
			continue
		}
		if p, ok := readProcess(pid); ok {
			list = append(list, p)
		}
	}
	main := int(mainPid.Load())
	sort.Slice(list, func(i, j int) bool {
		if (list[i].pid == main) != (list[j].pid == main) {
			return list[j].pid == main
		}
		return list[i].resident > list[j].resident
	})
	return list
}

func readProcess(pid int) (process, bool) {
	statm, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return process{}, false
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return process{}, false
	}
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return process{}, false
	}
	name, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid))
	return process{pid: pid, resident: pages * pageSize, name: strings.TrimSpace(string(name))}, true
}
