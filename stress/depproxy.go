package stress

import (
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemstress/idemstress/internal/process"
	"github.com/idemstress/idemstress/internal/respproxy"
)

// The RESP proxies in front of the service's dependencies (package
// respproxy): with a process section, each declared dependency that
// speaks RESP gets one, started once the dependency is, and the service
// is handed the proxy's address as {dep.NAME.url}, addr and port. The
// dependency's restarts and crashes happen behind it, on its own port.

// respServers are the base names of commands that serve RESP.
var respServers = []string{"redis-server", "valkey-server", "keydb-server", "redis-stack-server"}

// speaksRESP reports whether a dependency speaks RESP: its url is a
// redis:// or valkey:// one, or its command is a Redis-compatible server.
// (rediss:// is TLS, which the proxy does not read.)
func speaksRESP(d process.DependencySpec) bool {
	if u, err := url.Parse(d.URL); err == nil && (u.Scheme == "redis" || u.Scheme == "valkey") {
		return true
	}
	if strings.HasPrefix(d.URL, "rediss:") || strings.HasPrefix(d.URL, "valkeys:") {
		return false
	}
	return len(d.Command) > 0 && slices.Contains(respServers, filepath.Base(d.Command[0]))
}

// processSpec is the process section as the session starts it: with a
// RESP proxy in front of each dependency that speaks RESP.
func (s *Session) processSpec() process.Spec {
	spec := *s.cfg.Process
	if !slices.ContainsFunc(spec.Dependencies, speaksRESP) {
		return spec
	}
	resp := map[string]bool{}
	for _, d := range spec.Dependencies {
		resp[d.Name] = speaksRESP(d)
	}
	spec.Front = func(name, addr string) (string, error) {
		if !resp[name] {
			return addr, nil
		}
		p, err := respproxy.Start(respproxy.Options{Server: addr})
		if err != nil {
			return "", err
		}
		s.closers = append(s.closers, func() { _ = p.Close() })
		if s.deps == nil {
			s.deps = map[string]*respproxy.Proxy{}
		}
		s.deps[name] = p
		fmt.Fprintf(s.cfg.Log, "idemstress: RESP proxy at %s in front of dependency %s\n", p.Addr(), name)
		return p.Addr(), nil
	}
	return spec
}
