package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// stateEnv tells a renewed agent where its earlier self left the process table: a memfd
// (inherited across exec) holding handed, one per process.
const stateEnv = "HEARTH_AGENT_STATE"

// handed is one process as the agent hands it to its renewed self: what the API shows, the
// output kept, and the descriptors of its pipes, which stay open across exec (-1: none).
type handed struct {
	Pid       int        `json:"pid"`
	Tag       string     `json:"tag"`
	Command   []string   `json:"command"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	ExitCode  *int       `json:"exit_code"`
	Events    []event    `json:"events"`
	First     int        `json:"first"`
	Main      bool       `json:"main"`
	Fds       [3]int     `json:"fds"`
}

// handOver stops the readers of every process, keeps its pipes open across exec and writes the
// table to a memfd for the renewed agent; it answers the environment to exec with. The reaper
// stays locked from here to the exec, so no status is collected and lost in between.
func handOver(env []string) []string {
	children.mu.Lock()
	processes.mu.Lock()
	var table []handed
	for _, p := range processes.procs {
		table = append(table, p.handOver(p.Pid == processes.main))
	}
	state, err := json.Marshal(table)
	if err == nil {
		var fd int
		if fd, err = memfd(state); err == nil {
			return append(env, fmt.Sprintf("%s=%d", stateEnv, fd))
		}
	}
	fmt.Fprintf(os.Stderr, "hearth-agent: cannot hand the processes over; their output is lost: %v\n", err)
	return env
}

func (p *proc) handOver(main bool) handed {
	p.mu.Lock()
	p.handing = true
	p.mu.Unlock()
	for _, f := range []*os.File{p.pipes.stdout, p.pipes.stderr} {
		if f != nil {
			_ = f.SetReadDeadline(time.Now())
		}
	}
	p.reading.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	h := handed{Pid: p.Pid, Tag: p.Tag, Command: p.Command, StartedAt: p.StartedAt, EndedAt: p.endedAt,
		ExitCode: p.exitCode, Events: p.events, First: p.first, Main: main, Fds: [3]int{-1, -1, -1}}
	for i, f := range []*os.File{p.pipes.stdin, p.pipes.stdout, p.pipes.stderr} {
		if f != nil {
			h.Fds[i] = inheritable(f)
		}
	}
	return h
}

// resume undoes handOver when the exec failed: the readers go on, the reaper too.
func resume() {
	for _, p := range processes.procs {
		p.mu.Lock()
		p.handing = false
		for _, f := range []*os.File{p.pipes.stdin, p.pipes.stdout, p.pipes.stderr} {
			if f != nil {
				syscall.CloseOnExec(int(f.Fd()))
			}
		}
		p.mu.Unlock()
		p.open = 0
		p.collect()
	}
	processes.mu.Unlock()
	children.mu.Unlock()
}

// inheritable is the descriptor of {@code f}, kept open across exec.
func inheritable(f *os.File) int {
	fd := int(f.Fd())
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFD, 0)
	return fd
}

func memfd(content []byte) (int, error) {
	name, _ := syscall.BytePtrFromString("hearth-agent-state")
	fd, _, errno := syscall.Syscall(sysMemfdCreate, uintptr(unsafe.Pointer(name)), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	if _, err := syscall.Write(int(fd), content); err != nil {
		syscall.Close(int(fd))
		return 0, err
	}
	return int(fd), nil
}

// takeOver reads what an earlier self of the agent handed over, if it did, and keeps its
// processes as if started here; it answers whether the agent is a renewed one.
func takeOver() bool {
	if legacy, ok := os.LookupEnv(legacyMainEnv); ok {
		adoptLegacy(legacy)
		return true
	}
	text, renewed := os.LookupEnv(stateEnv)
	if !renewed {
		return false
	}
	_ = os.Unsetenv(stateEnv)
	fd, err := strconv.Atoi(text)
	if err != nil {
		return true
	}
	f := os.NewFile(uintptr(fd), "hearth-agent-state")
	_, _ = f.Seek(0, io.SeekStart)
	var table []handed
	if err := json.NewDecoder(f).Decode(&table); err != nil {
		fmt.Fprintf(os.Stderr, "hearth-agent: cannot take the processes over: %v\n", err)
	}
	f.Close()
	for _, h := range table {
		adopt(h)
	}
	return true
}

// legacyMainEnv is how an agent from before the hand-over told its renewed self its main process
// (0: none). Such an agent, still in the memory of a computer asleep across an upgrade, renews
// into this binary on its wake: its main process is adopted (its output so far was never kept),
// never started a second time.
const legacyMainEnv = "HEARTH_AGENT_MAIN"

func adoptLegacy(text string) {
	_ = os.Unsetenv(legacyMainEnv)
	if pid, err := strconv.Atoi(text); err == nil && pid > 0 {
		command := []string{}
		if argv, err := os.ReadFile("/proc/" + text + "/cmdline"); err == nil && len(argv) > 0 {
			command = strings.Split(strings.TrimRight(string(argv), "\x00"), "\x00")
		}
		adopt(handed{Pid: pid, Tag: mainTag, Command: command, StartedAt: time.Now().UTC(), Main: true,
			Fds: [3]int{-1, -1, -1}})
	}
}

func adopt(h handed) {
	p := newProc(h.Pid, h.Tag, h.Command, h.StartedAt, pipes{stdin: reopen(h.Fds[0]),
		stdout: reopen(h.Fds[1]), stderr: reopen(h.Fds[2])})
	p.events, p.first, p.tee = h.Events, h.First, h.Main
	for _, e := range h.Events {
		p.size += len(e.Data)
	}
	if h.EndedAt != nil {
		p.end(*h.ExitCode, *h.EndedAt)
	} else {
		children.watch(h.Pid, p.exited)
	}
	processes.add(p)
}

// reopen makes a handed descriptor a file again, read through Go's poller.
func reopen(fd int) *os.File {
	if fd < 0 {
		return nil
	}
	_ = syscall.SetNonblock(fd, true)
	syscall.CloseOnExec(fd)
	return os.NewFile(uintptr(fd), "pipe")
}
