package main

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Port is where the agent answers hearth serve, on every address of the computer. Hearth's
// firewall keeps other computers off it; the secret keeps everyone else out.
const Port = 49983

// socketEnv asks the agent to answer on a Unix socket at that path as well.
const socketEnv = "HEARTH_AGENT_SOCKET"

// secretEnv hands the agent its secret at start; it is taken out of every environment it passes on.
const secretEnv = "HEARTH_AGENT_SECRET"

// bootID names this start of the agent's program: hearth serve notes it before saving a computer's
// memory, and after a restore waits for another (the agent renewed itself, see renewSignal).
var bootID = randomHex()

// active counts requests being answered, so that PID 1 ending (which ends the computer) lets
// them finish first: an exec of `kill 1` gets its answer.
var active atomic.Int64

// settle waits, at most {@code limit}, for the requests being answered to end, reaping meanwhile:
// a command's answer waits for its exit status, which only the reaper collects.
func settle(limit time.Duration) {
	for deadline := time.Now().Add(limit); active.Load() > 0 && time.Now().Before(deadline); {
		children.reap()
		time.Sleep(5 * time.Millisecond)
	}
}

type server struct {
	mu     sync.RWMutex
	secret []byte
}

// serve answers hearth serve's requests until the sandbox ends. A fork wakes up with its source's
// secret in memory; hearth serve replaces it at once through /rekey.
func serve(secret string) {
	s := &server{secret: []byte(secret)}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", health)
	mux.HandleFunc("POST /rekey", s.rekey)
	mux.HandleFunc("POST /claim", s.claim)
	mux.HandleFunc("GET /stats", stats)
	mux.HandleFunc("POST /exec", execute)
	mux.HandleFunc("POST /terminal", terminal)
	fileRoutes(mux)
	processRoutes(mux)
	// A Unix socket too, when asked (bench/ChannelBench compares it with TCP: runsc --host-uds=create
	// lets a socket made in a bind-mounted directory be reached from the host).
	if path := os.Getenv(socketEnv); path != "" {
		_ = os.Remove(path) // an earlier self's (see renew)
		if ln, err := net.Listen("unix", path); err == nil {
			go http.Serve(ln, s.authenticated(mux))
		} else {
			fmt.Fprintf(os.Stderr, "hearth-agent: cannot listen on %s: %v\n", path, err)
		}
	}
	ln, err := net.Listen("tcp", fmt.Sprintf(":%d", Port))
	if err != nil {
		fmt.Fprintf(os.Stderr, "hearth-agent: cannot listen on %d: %v\n", Port, err)
		return
	}
	err = http.Serve(ln, s.authenticated(mux))
	fmt.Fprintf(os.Stderr, "hearth-agent: stopped serving: %v\n", err)
}

func (s *server) authenticated(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		given, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		s.mu.RLock()
		match := ok && subtle.ConstantTimeCompare([]byte(given), s.secret) == 1
		s.mu.RUnlock()
		if !match {
			fail(w, http.StatusUnauthorized, "unauthorized", "this agent answers Hearth only")
			return
		}
		active.Add(1)
		defer active.Add(-1)
		next.ServeHTTP(w, r)
	})
}

func (s *server) rekey(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Secret string `json:"secret"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Secret) < 32 {
		fail(w, http.StatusBadRequest, "invalid", "a secret of at least 32 characters is required")
		return
	}
	s.mu.Lock()
	s.secret = []byte(body.Secret)
	s.mu.Unlock()
	// A re-exec (see renew) starts with the secret the agent answers to now.
	_ = os.Setenv(secretEnv, body.Secret)
	w.WriteHeader(http.StatusNoContent)
}

// fail answers an error as {code, message}; hearth serve turns it into its own envelope.
func fail(w http.ResponseWriter, status int, code, message string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": code, "message": message})
}

// failFile answers a file system error by what it means to the caller.
func failFile(w http.ResponseWriter, path string, err error) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		fail(w, http.StatusNotFound, "not_found", path+": no such file or directory")
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		fail(w, http.StatusInsufficientStorage, "no_space", path+": no space left on the computer's disk")
	case errors.Is(err, syscall.EISDIR):
		fail(w, http.StatusBadRequest, "is_dir", path+" is a directory")
	case errors.Is(err, syscall.ENOTDIR):
		fail(w, http.StatusBadRequest, "not_dir", path+": a part of the path is not a directory")
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.ENOTEMPTY):
		fail(w, http.StatusConflict, "exists", path+": "+cause(err))
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		fail(w, http.StatusForbidden, "denied", path+": "+cause(err))
	default:
		fail(w, http.StatusBadRequest, "failed", path+": "+cause(err))
	}
}

// cause is the innermost error's text ("no such file or directory"), without Go's operation prefix.
func cause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// environ is the agent's environment without its secret: what the main process inherits.
func environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, secretEnv+"=") {
			env = append(env, kv)
		}
	}
	return env
}
