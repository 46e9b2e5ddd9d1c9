package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// execSpec is the JSON head of POST /exec: 4 bytes of its length (big-endian), then it, then stdin.
type execSpec struct {
	Command   []string `json:"command"`
	Env       []string `json:"env"`
	Cwd       string   `json:"cwd"`
	TimeoutMs int64    `json:"timeout_ms"`
}

// Frames of the answer: a kind byte, 4 bytes of length (big-endian), the payload.
const (
	frameStdout = 'o'
	frameStderr = 'e'
	frameExit   = 'x'
)

// What output a process may still write after it ended (a child it left holding the pipe) is
// read for this long, then the answer ends, as runsc exec's does when the process exits.
const drainAfterExit = 100 * time.Millisecond

// execute runs a command and streams its output as frames, then its exit. The request ending (the
// caller hung up) or the time limit kills the command's whole tree.
func execute(w http.ResponseWriter, r *http.Request) {
	spec, err := readSpec(r.Body)
	if err != nil {
		fail(w, http.StatusBadRequest, "invalid", err.Error())
		return
	}
	_ = http.NewResponseController(w).EnableFullDuplex()
	w.Header().Set("Content-Type", "application/x-hearth-frames")
	out := &frames{w: w, flush: http.NewResponseController(w).Flush}
	// The head goes at once: a command may be silent for as long as its time limit.
	w.WriteHeader(http.StatusOK)
	_ = out.flush()
	proc, err := startCommand(spec, r.Body)
	if err != nil {
		_, _ = io.Copy(io.Discard, r.Body)
		out.write(frameStderr, []byte(fmt.Sprintf("hearth-agent: %s: %s\n", spec.Command[0], cause(err))))
		out.exit(startFailure(err), false)
		return
	}
	timeout := time.NewTimer(time.Duration(spec.TimeoutMs) * time.Millisecond)
	defer timeout.Stop()
	var relays sync.WaitGroup
	relays.Add(2)
	go relay(proc.stdout, frameStdout, out, &relays)
	go relay(proc.stderr, frameStderr, out, &relays)
	relayed := make(chan struct{})
	go func() { relays.Wait(); close(relayed) }()
	timedOut := false
	var status syscall.WaitStatus
	select {
	case status = <-proc.ended:
		proc.drain(relayed)
	case <-timeout.C:
		timedOut = true
		killTree(proc.pid)
		status = <-proc.ended
		proc.drain(relayed)
	case <-r.Context().Done():
		killTree(proc.pid)
		<-proc.ended
		proc.stop()
	}
	relays.Wait()
	proc.release()
	// The body must not be read once the handler returns: wait for stdin to be taken whole.
	<-proc.fed
	if r.Context().Err() == nil {
		out.exit(exitCode(status), timedOut)
	}
}

func readSpec(body io.Reader) (execSpec, error) {
	var spec execSpec
	head, err := readHead(body)
	if err != nil {
		return spec, errors.New("the exec head is missing, too large or cut short")
	}
	if err := json.Unmarshal(head, &spec); err != nil || len(spec.Command) == 0 || spec.TimeoutMs <= 0 {
		return spec, errors.New("the exec head needs a command and a timeout")
	}
	return spec, nil
}

// startFailure is the exit code a shell gives for a command it cannot run.
func startFailure(err error) int {
	if errors.Is(err, os.ErrNotExist) {
		return 127
	}
	return 126
}

// frames writes one frame at a time from several goroutines, flushing each.
type frames struct {
	mu    sync.Mutex
	w     io.Writer
	flush func() error
}

func (f *frames) write(kind byte, payload []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	head := [5]byte{kind}
	binary.BigEndian.PutUint32(head[1:], uint32(len(payload)))
	if _, err := f.w.Write(head[:]); err != nil {
		return err
	}
	if _, err := f.w.Write(payload); err != nil {
		return err
	}
	return f.flush()
}

func (f *frames) exit(code int, timedOut bool) {
	body, _ := json.Marshal(map[string]any{"exit_code": code, "timed_out": timedOut})
	_ = f.write(frameExit, body)
}

func relay(from io.Reader, kind byte, out *frames, done *sync.WaitGroup) {
	defer done.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := from.Read(buf)
		if n > 0 && out.write(kind, buf[:n]) != nil {
			return
		}
		if err != nil {
			return
		}
	}
}

// command is a started process: its pid, its output pipes and when it ends.
type command struct {
	pid            int
	ended          <-chan syscall.WaitStatus
	fed            <-chan struct{}
	stdout, stderr *os.File
}

// startCommand starts argv in a process group of its own (so its tree can be killed), with stdin
// fed from {@code stdin} until it ends.
func startCommand(spec execSpec, stdin io.Reader) (*command, error) {
	path, err := resolve(spec.Command[0], spec.Env)
	if err != nil {
		return nil, err
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, _ := os.Pipe()
	errR, errW, _ := os.Pipe()
	attr := &syscall.ProcAttr{Dir: spec.Cwd, Env: spec.Env,
		Files: []uintptr{inR.Fd(), outW.Fd(), errW.Fd()}, Sys: &syscall.SysProcAttr{Setpgid: true}}
	pid, ended, err := children.spawn(path, spec.Command, attr)
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	fed := make(chan struct{})
	go feed(inW, stdin, fed)
	return &command{pid: pid, ended: ended, fed: fed, stdout: outR, stderr: errR}, nil
}

// feed copies the request's stdin to the command and closes the pipe (EOF for the command); what
// the command does not take (it ended first) is read and dropped, so the request is read whole
// before its handler returns.
func feed(to *os.File, from io.Reader, fed chan<- struct{}) {
	defer close(fed)
	_, err := io.Copy(to, from)
	to.Close()
	if err != nil {
		_, _ = io.Copy(io.Discard, from)
	}
}

// drain gives output still buffered (or held open by a child left behind) a moment, then stops
// reading. It never stops while a pipe still holds bytes: under load the relays may not have run
// yet, and a deadline alone would drop output the command did write.
func (c *command) drain(relayed <-chan struct{}) {
	drainPipes(relayed, drainAfterExit, c.stdout, c.stderr)
}

// stop ends the reads at once.
func (c *command) stop() {
	_ = c.stdout.SetReadDeadline(time.Now())
	_ = c.stderr.SetReadDeadline(time.Now())
}

// release frees the pipes once nothing reads them.
func (c *command) release() {
	c.stdout.Close()
	c.stderr.Close()
}

// resolve finds argv[0] as execvp(3) would, in the PATH of the command's own environment.
func resolve(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		if _, err := os.Stat(name); err != nil {
			return "", err
		}
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	return lookPath(name, path)
}

// killTree stops, then kills, a process's group and every descendant found in /proc: a child
// that left the group would otherwise keep running (and keep its output pipes open).
func killTree(pid int) {
	tree := append(descendants(pid), pid)
	for _, p := range tree {
		_ = syscall.Kill(p, syscall.SIGSTOP)
	}
	_ = syscall.Kill(-pid, syscall.SIGKILL)
	for _, p := range tree {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

func descendants(root int) []int {
	parents := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name in parentheses may hold spaces: parse after its closing one.
		text := string(stat)
		end := strings.LastIndexByte(text, ')')
		if end < 0 || end+2 > len(text) {
			continue
		}
		var ppid int
		var state string
		if _, err := fmt.Sscanf(text[end+2:], "%s %d", &state, &ppid); err == nil {
			parents[ppid] = append(parents[ppid], pid)
		}
	}
	var found []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parents[p] {
			found = append(found, c)
			queue = append(queue, c)
		}
	}
	return found
}
