package process

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/idemstress/idemstress/internal/logtail"
	"github.com/idemstress/idemstress/internal/procgroup"
)

// pickPort returns a port that is free now and not one of ours.
func (p *Service) pickPort() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("process: finding a free port on 127.0.0.1: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !p.ports[port] {
			p.ports[port] = true
			return port, nil
		}
	}
	return 0, errors.New("process: finding a free port on 127.0.0.1: the system keeps offering ports already in use by replicas")
}

// exitedForPort reports whether pr exited because its port was in use: it
// says so, or the port is taken now.
func exitedForPort(pr *proc, out *logtail.Tail) bool {
	if !pr.exited() {
		return false
	}
	said := strings.ToLower(out.Since(pr.mark))
	if strings.Contains(said, "address already in use") || strings.Contains(said, "eaddrinuse") {
		return true
	}
	l, err := net.Listen("tcp", addrOf(pr.port))
	if err != nil {
		return true
	}
	l.Close()
	return false
}

func addrOf(port int) string { return "127.0.0.1:" + strconv.Itoa(port) }

// waitReady waits until pr accepts connections (and answers ReadyPath).
func (p *Service) waitReady(ctx context.Context, r *replica, pr *proc) error {
	addr := addrOf(pr.port)
	var client *http.Client
	if p.spec.ReadyPath != "" {
		client = &http.Client{
			Transport:     &http.Transport{DisableKeepAlives: true},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		defer client.CloseIdleConnections()
	}
	deadline := time.NewTimer(p.spec.Ready)
	defer deadline.Stop()
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		switch ready(ctx, addr, pr, client, p.spec.ReadyPath, p.spec.probe) {
		case readyYes:
			p.mu.Lock()
			pr.ready = true
			p.mu.Unlock()
			return nil
		case readyForeign:
			return fmt.Errorf("process: replica %d (pid %d): another process listens on its port %d, taken since it was picked: %w",
				r.index, pr.pid, pr.port, errPortTaken)
		}
		select {
		case <-pr.done:
			p.mu.Lock()
			stopped := p.stopped
			p.mu.Unlock()
			if stopped {
				return fmt.Errorf("process: replica %d: %w while it started", r.index, ErrStopped)
			}
			pr.settle()
			return fmt.Errorf("process: replica %d (pid %d) exited before accepting connections on %s: %s%s",
				r.index, pr.pid, addr, exitStatus(pr.err), tailSince(r.out, pr.mark))
		case <-ctx.Done():
			return fmt.Errorf("process: replica %d (pid %d): waiting for %s to accept connections: %w", r.index, pr.pid, addr, ctx.Err())
		case <-deadline.C:
			what := "accept connections on " + addr
			if client != nil {
				what = "answer 2xx to GET http://" + addr + p.spec.ReadyPath
			}
			if p.spec.probe != nil {
				what = "answer its ready check on " + addr
			}
			return fmt.Errorf("process: replica %d (pid %d) did not %s within %s "+
				"(the command must listen on {port} or $PORT; raise process.ready_timeout if it starts slowly)%s",
				r.index, pr.pid, what, p.spec.Ready, tailSince(r.out, pr.mark))
		case <-tick.C:
		}
	}
}

type readiness int

const (
	readyNot readiness = iota
	readyYes
	readyForeign // the port answers, but another process listens on it
)

// ready tells whether pr is ready on addr.
func ready(ctx context.Context, addr string, pr *proc, client *http.Client, path string, probe func(context.Context, string) bool) readiness {
	d := net.Dialer{Timeout: 250 * time.Millisecond}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return readyNot
	}
	// Polling a port in the ephemeral range can connect to itself (TCP
	// simultaneous open) when nothing listens yet.
	self := conn.LocalAddr().String() == conn.RemoteAddr().String()
	conn.Close()
	if self || pr.exited() {
		return readyNot
	}
	// The port was free when picked; whoever took it since and answers is
	// not pr, and calls must not go there.
	if procgroup.WhoListens(pr.pid, pr.port) == procgroup.ListenerForeign {
		return readyForeign
	}
	if probe != nil && !probe(ctx, addr) {
		return readyNot
	}
	if client == nil {
		return readyYes
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return readyNot
	}
	resp, err := client.Do(req)
	if err != nil {
		return readyNot
	}
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return readyNot
	}
	return readyYes
}
