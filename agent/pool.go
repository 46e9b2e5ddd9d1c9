package main

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
)

// A pooled agent is started before anyone asked for its computer (hearth serve's warm pool): it
// answers hearth serve but starts nothing until the claim, which says whose computer it now is
// (hostname, the main process's environment, argv and restart policy). Until then the sandbox runs
// nothing but the agent.

// claim is hearth serve's POST /claim, handed to the init loop, which answers on started.
type claim struct {
	Command  []string `json:"command"`
	Env      []string `json:"env"`
	Restart  string   `json:"restart"`
	Hostname string   `json:"hostname"`
	started  chan error
}

var (
	pooled  atomic.Bool
	claimed atomic.Bool
	claims  = make(chan *claim)
	// reexecArgs is what a renewal executes: the claim's own init line once there was one.
	reexecArgs = os.Args
)

func (s *server) claim(w http.ResponseWriter, r *http.Request) {
	var c claim
	if err := json.NewDecoder(r.Body).Decode(&c); err != nil || !validRestart(c.Restart) || !validHostname(c.Hostname) {
		fail(w, http.StatusBadRequest, "invalid", "a claim has a command, env, a restart policy and a hostname")
		return
	}
	if !pooled.Load() || !claimed.CompareAndSwap(false, true) {
		fail(w, http.StatusConflict, "exists", "this computer is claimed already")
		return
	}
	c.started = make(chan error, 1)
	claims <- &c
	if err := <-c.started; err != nil {
		var refused claimRefused
		if errors.As(err, &refused) {
			fail(w, http.StatusInternalServerError, "claim_failed", err.Error())
		} else {
			fail(w, http.StatusBadRequest, "cannot_start", err.Error())
		}
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// health answers the agent's boot id, and whether it waits for a claim still (a pooled sandbox
// whose claim was cut short by a crash of hearth serve is started afresh, not adopted).
func health(w http.ResponseWriter, r *http.Request) {
	answer(w, map[string]any{"boot": bootID, "unclaimed": pooled.Load() && !claimed.Load()})
}

// claimRefused is a claim the agent could not apply (it ends, and hearth serve starts the computer cold).
type claimRefused struct{ error }

func validRestart(restart string) bool {
	return restart == "always" || restart == "on-failure" || restart == "never"
}

func validHostname(name string) bool {
	return name != "" && len(name) <= 64 && !strings.ContainsAny(name, "\x00/ ")
}

// awaitClaim reaps until the claim comes, answering it; nil when the computer is stopped first.
func awaitClaim(signals chan os.Signal) *claim {
	for {
		select {
		case sig := <-signals:
			switch sig {
			case syscall.SIGCHLD:
				children.reap()
			case syscall.SIGTERM, syscall.SIGINT:
				return nil
			}
		case c := <-claims:
			return c
		}
	}
}

// apply makes the agent what a computer started with these settings would have been: its
// hostname, its environment (the agent's secret kept) and the init line a renewal runs again.
func (c *claim) apply() (initOptions, error) {
	if err := syscall.Sethostname([]byte(c.Hostname)); err != nil {
		return initOptions{}, claimRefused{err}
	}
	if err := dropSysAdmin(); err != nil {
		return initOptions{}, claimRefused{err}
	}
	secret := os.Getenv(secretEnv)
	os.Clearenv()
	for _, kv := range c.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			_ = os.Setenv(k, v)
		}
	}
	_ = os.Setenv(secretEnv, secret)
	reexecArgs = append([]string{os.Args[0], "init", "--restart", c.Restart, "--"}, c.Command...)
	return initOptions{command: c.Command, restart: c.Restart}, nil
}
