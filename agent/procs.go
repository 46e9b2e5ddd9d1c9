package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// Bounds of the process table: what one process's output keeps (the oldest output goes first),
// how many processes may run, and how many ended ones are remembered.
const (
	outputLimit   = 1 << 20
	runningLimit  = 256
	rememberEnded = 32
)

// event is one piece of a process's output, in the order it was read.
type event struct {
	Kind byte   `json:"k"`
	Data []byte `json:"d"`
}

// proc is one process the agent keeps: the main process, or one started in the background.
type proc struct {
	Pid       int       `json:"pid"`
	Tag       string    `json:"tag"`
	Command   []string  `json:"command"`
	StartedAt time.Time `json:"started_at"`

	mu       sync.Mutex
	endedAt  *time.Time
	exitCode *int
	events   []event // output kept, oldest first
	first    int     // the sequence number of events[0]: a follower behind it lost output
	size     int
	changed  chan struct{} // closed (and replaced) when output comes or the process ends
	pipes    pipes
	done     chan struct{} // closed once the process ended
	tee      bool          // the main process's output also goes to the agent's own stdout and stderr
	reading  sync.WaitGroup
	open     int  // output pipes not yet at their end
	handing  bool // the agent is handing its processes over to its renewed self: readers stop, pipes stay open
}

// pipes are the agent's ends of a process's stdio; stdin is nil unless the process takes input.
type pipes struct {
	stdin, stdout, stderr *os.File
}

// procView is a process as the API shows it.
type procView struct {
	Pid       int        `json:"pid"`
	Tag       string     `json:"tag"`
	Command   []string   `json:"command"`
	State     string     `json:"state"`
	ExitCode  *int       `json:"exit_code"`
	StartedAt time.Time  `json:"started_at"`
	EndedAt   *time.Time `json:"ended_at"`
	Stdin     bool       `json:"stdin"`
}

type table struct {
	mu    sync.Mutex
	procs map[int]*proc
	main  int
}

var processes = &table{procs: map[int]*proc{}}

var errTooMany = errors.New("too many processes are running in this computer")

func newProc(pid int, tag string, command []string, started time.Time, p pipes) *proc {
	return &proc{Pid: pid, Tag: tag, Command: command, StartedAt: started, pipes: p,
		changed: make(chan struct{}), done: make(chan struct{})}
}

// add keeps a started process and begins collecting its output; the reaper tells it its end.
func (t *table) add(p *proc) {
	t.mu.Lock()
	t.procs[p.Pid] = p
	if p.tee {
		t.main = p.Pid
	}
	t.forgetEnded()
	t.mu.Unlock()
	p.collect()
}

func (t *table) roomForOneMore() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	running := 0
	for _, p := range t.procs {
		if !p.ended() {
			running++
		}
	}
	if running >= runningLimit {
		return errTooMany
	}
	return nil
}

// forgetEnded drops the oldest ended processes beyond what is remembered.
func (t *table) forgetEnded() {
	var ended []*proc
	for _, p := range t.procs {
		if p.ended() && p.Pid != t.main {
			ended = append(ended, p)
		}
	}
	sort.Slice(ended, func(i, j int) bool { return ended[i].StartedAt.Before(ended[j].StartedAt) })
	for len(ended) > rememberEnded {
		delete(t.procs, ended[0].Pid)
		ended = ended[1:]
	}
}

// find is a process by pid, or the main process for "main".
func (t *table) find(selector string) *proc {
	t.mu.Lock()
	defer t.mu.Unlock()
	if selector == mainTag {
		return t.procs[t.main]
	}
	var pid int
	if _, err := fmt.Sscanf(selector, "%d", &pid); err != nil || fmt.Sprint(pid) != selector {
		return nil
	}
	return t.procs[pid]
}

func (t *table) list() []procView {
	t.mu.Lock()
	defer t.mu.Unlock()
	views := make([]procView, 0, len(t.procs))
	for _, p := range t.procs {
		views = append(views, p.view())
	}
	sort.Slice(views, func(i, j int) bool { return views[i].StartedAt.Before(views[j].StartedAt) })
	return views
}

func (p *proc) view() procView {
	p.mu.Lock()
	defer p.mu.Unlock()
	state := "running"
	if p.endedAt != nil {
		state = "exited"
	}
	return procView{Pid: p.Pid, Tag: p.Tag, Command: p.Command, State: state, ExitCode: p.exitCode,
		StartedAt: p.StartedAt, EndedAt: p.endedAt, Stdin: p.pipes.stdin != nil}
}

func (p *proc) ended() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// collect reads the process's output into its buffer.
func (p *proc) collect() {
	for _, pipe := range []struct {
		from *os.File
		kind byte
	}{{p.pipes.stdout, frameStdout}, {p.pipes.stderr, frameStderr}} {
		if pipe.from != nil {
			p.open++
			p.reading.Add(1)
			go p.read(pipe.from, pipe.kind)
		}
	}
}

// exited is the reaper's word that the process ended.
func (p *proc) exited(status syscall.WaitStatus) {
	p.end(exitCode(status), time.Now().UTC())
}

func (p *proc) read(from *os.File, kind byte) {
	defer p.reading.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 {
			p.append(kind, append([]byte(nil), buf[:n]...))
		}
		if err != nil {
			p.mu.Lock()
			defer p.mu.Unlock()
			if !p.handing {
				from.Close()
				if p.pipes.stdout == from {
					p.pipes.stdout = nil
				} else {
					p.pipes.stderr = nil
				}
				p.open--
				p.notify()
			}
			return
		}
	}
}

func (p *proc) append(kind byte, data []byte) {
	if p.tee {
		mirror := os.Stdout
		if kind == frameStderr {
			mirror = os.Stderr
		}
		_, _ = mirror.Write(data)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, event{Kind: kind, Data: data})
	p.size += len(data)
	for p.size > outputLimit && len(p.events) > 1 {
		p.size -= len(p.events[0].Data)
		p.events = p.events[1:]
		p.first++
	}
	p.notify()
}

func (p *proc) end(code int, at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.endedAt != nil {
		return
	}
	p.exitCode, p.endedAt = &code, &at
	if p.pipes.stdin != nil {
		p.pipes.stdin.Close()
		p.pipes.stdin = nil
	}
	close(p.done)
	p.notify()
}

// notify wakes every follower; the caller holds p.mu.
func (p *proc) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// since answers the output from sequence number {@code next} on (or from the oldest kept, when
// that went), the sequence number after it, and a channel that closes when there is more.
func (p *proc) since(next int) ([]event, int, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if next < p.first {
		next = p.first
	}
	out := append([]event(nil), p.events[next-p.first:]...)
	return out, p.first + len(p.events), p.changed
}

// feed writes to the process's stdin, closing it after when {@code close} says so.
func (p *proc) feed(from io.Reader, close bool) error {
	p.mu.Lock()
	in := p.pipes.stdin
	p.mu.Unlock()
	if in == nil {
		return errors.New("the process takes no input (it was started without stdin, it closed, or it ended)")
	}
	_, err := io.Copy(in, from)
	if close || err != nil {
		p.mu.Lock()
		if p.pipes.stdin == in {
			p.pipes.stdin = nil
		}
		p.mu.Unlock()
		in.Close()
	}
	return err
}

// drainPipes waits until {@code relayed} closes (the readers hit the end), or {@code limit} has
// passed and no pipe holds unread bytes; then it ends the reads with a deadline.
func drainPipes(relayed <-chan struct{}, limit time.Duration, pipes ...*os.File) {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) || unread(pipes) {
		select {
		case <-relayed:
			return
		case <-time.After(2 * time.Millisecond):
		}
	}
	for _, f := range pipes {
		_ = f.SetReadDeadline(time.Now())
	}
}

// unread says whether any of the pipes holds bytes not read yet (FIONREAD).
func unread(pipes []*os.File) bool {
	for _, f := range pipes {
		var n int32
		if ioctl(f, syscall.TIOCINQ, unsafe.Pointer(&n)) == nil && n > 0 {
			return true
		}
	}
	return false
}
