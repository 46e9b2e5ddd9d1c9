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
	"syscall"
	"time"
	"unsafe"
)

// termSpec is the JSON head of POST /terminal (4 bytes of its length first, as exec's).
type termSpec struct {
	Command []string `json:"command"`
	Env     []string `json:"env"`
	Cwd     string   `json:"cwd"`
	Cols    int      `json:"cols"`
	Rows    int      `json:"rows"`
}

// Frames the caller sends after the head: keystrokes, and a new window size ({cols, rows}).
const (
	frameInput  = 'i'
	frameResize = 'r'
)

// terminal runs a command on a new pty: the caller's frames are its input and window sizes, the
// answer is its output as frames, then its exit. The request ending kills the command's tree.
func terminal(w http.ResponseWriter, r *http.Request) {
	var spec termSpec
	head, err := readHead(r.Body)
	if err == nil {
		err = json.Unmarshal(head, &spec)
	}
	if err != nil || len(spec.Command) == 0 {
		fail(w, http.StatusBadRequest, "invalid", "the terminal head needs a command")
		return
	}
	_ = http.NewResponseController(w).EnableFullDuplex()
	w.Header().Set("Content-Type", "application/x-hearth-frames")
	out := &frames{w: w, flush: http.NewResponseController(w).Flush}
	w.WriteHeader(http.StatusOK)
	_ = out.flush()
	master, pid, ended, err := startOnPty(spec)
	if err != nil {
		out.write(frameStdout, []byte(fmt.Sprintf("hearth-agent: %s: %s\r\n", spec.Command[0], cause(err))))
		out.exit(startFailure(err), false)
		return
	}
	defer master.Close()
	go steer(r.Body, master)
	relayed := make(chan struct{})
	go func() {
		defer close(relayed)
		buf := make([]byte, 32<<10)
		for {
			n, err := master.Read(buf)
			if n > 0 && out.write(frameStdout, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	var status syscall.WaitStatus
	select {
	case status = <-ended:
		drainPipes(relayed, drainAfterExit, master)
		<-relayed
		out.exit(exitCode(status), false)
	case <-r.Context().Done():
		killTree(pid)
		<-ended
		_ = master.SetReadDeadline(time.Now())
		<-relayed
	}
}

func readHead(body io.Reader) ([]byte, error) {
	var size uint32
	if err := binary.Read(body, binary.BigEndian, &size); err != nil || size > 64<<20 {
		return nil, errors.New("the head is missing or too large")
	}
	head := make([]byte, size)
	_, err := io.ReadFull(body, head)
	return head, err
}

// steer applies the caller's frames to the terminal until the request body ends.
func steer(body io.Reader, master *os.File) {
	var head [5]byte
	for {
		if _, err := io.ReadFull(body, head[:]); err != nil {
			return
		}
		payload := make([]byte, binary.BigEndian.Uint32(head[1:]))
		if _, err := io.ReadFull(body, payload); err != nil {
			return
		}
		switch head[0] {
		case frameInput:
			_, _ = master.Write(payload)
		case frameResize:
			var size struct{ Cols, Rows int }
			if json.Unmarshal(payload, &size) == nil {
				_ = setWindow(master, size.Cols, size.Rows)
			}
		}
	}
}

// startOnPty opens a pty and starts the command as the leader of a new session with the pty as
// its controlling terminal and stdio.
func startOnPty(spec termSpec) (*os.File, int, <-chan syscall.WaitStatus, error) {
	path, err := resolve(spec.Command[0], spec.Env)
	if err != nil {
		return nil, 0, nil, err
	}
	master, slave, err := openPty()
	if err != nil {
		return nil, 0, nil, err
	}
	defer slave.Close()
	_ = setWindow(master, spec.Cols, spec.Rows)
	fd := slave.Fd()
	attr := &syscall.ProcAttr{Dir: spec.Cwd, Env: spec.Env, Files: []uintptr{fd, fd, fd},
		Sys: &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}}
	pid, ended, err := children.spawn(path, spec.Command, attr)
	if err != nil {
		master.Close()
		return nil, 0, nil, err
	}
	return master, pid, ended, nil
}

func openPty() (*os.File, *os.File, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	var unlock int32
	var number uint32
	if err = ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err == nil {
		err = ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&number))
	}
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	slave, err := os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(number), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, nil, err
	}
	return master, slave, nil
}

func setWindow(master *os.File, cols, rows int) error {
	if cols <= 0 || rows <= 0 || cols > 10000 || rows > 10000 {
		return errors.New("a window size is 1 to 10000 each way")
	}
	size := struct{ rows, cols, x, y uint16 }{uint16(rows), uint16(cols), 0, 0}
	return ioctl(master, syscall.TIOCSWINSZ, unsafe.Pointer(&size))
}

// ioctl runs on the descriptor without taking it out of Go's poller (Fd() would make it blocking).
func ioctl(f *os.File, request uintptr, arg unsafe.Pointer) error {
	conn, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	err = conn.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, request, uintptr(arg))
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}
