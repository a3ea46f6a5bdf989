package wireproxy_test

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/idemstress/idemstress/internal/wireproxy"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestListenRefusesOtherThanLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:5432", "no-port"} {
		l, err := wireproxy.Listen("testproxy", addr, func(*wireproxy.Session) {})
		if err == nil {
			l.Close()
			t.Errorf("Listen(%q) listened; want it refused", addr)
			continue
		}
		if !strings.HasPrefix(err.Error(), "testproxy: listen address") || !strings.Contains(err.Error(), "127.0.0.1:PORT") {
			t.Errorf("Listen(%q): %v; want the proxy named and 127.0.0.1:PORT asked for", addr, err)
		}
	}
}

// echo serves lines back on loopback until the test ends.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() { defer c.Close(); _, _ = io.Copy(c, c) })
		}
	})
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

// lineProxy relays lines to server; a line "hold" is held until the
// session ends.
func lineProxy(t *testing.T, server string) *wireproxy.Listener {
	t.Helper()
	l, err := wireproxy.Listen("testproxy", "", func(s *wireproxy.Session) {
		var conn net.Conn
		connect := func() (net.Conn, error) {
			var err error
			conn, err = net.Dial("tcp", server)
			return conn, err
		}
		r := bufio.NewReader(s.Client())
		read := func() (string, error) { return r.ReadString('\n') }
		handle := func(line string) error {
			if line == "hold\n" {
				if err := s.Hold(nil); err != nil {
					return err
				}
			}
			_, err := io.WriteString(conn, line)
			return err
		}
		relay := func() {
			r := bufio.NewReader(conn)
			for {
				line, err := r.ReadString('\n')
				if err != nil || s.WriteClient([]byte(line)) != nil {
					return
				}
			}
		}
		wireproxy.Serve(s, connect, read, handle, relay)
	})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestServeRelaysAndCloseEndsHeldSessions(t *testing.T) {
	l := lineProxy(t, echo(t))
	client, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	r := bufio.NewReader(client)
	if _, err := io.WriteString(client, "a\n"); err != nil {
		t.Fatal(err)
	}
	if line, err := r.ReadString('\n'); line != "a\n" {
		t.Fatalf("through the proxy: %q, %v; want the line echoed", line, err)
	}
	if l.Open() != 1 || l.Peak() != 1 {
		t.Errorf("one session relaying: Open %d, Peak %d; want 1 and 1", l.Open(), l.Peak())
	}
	if _, err := io.WriteString(client, "hold\n"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); l.Held() != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the held line's session is not counted in Held")
		}
	}
	if err := l.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if line, err := r.ReadString('\n'); err == nil {
		t.Errorf("after Close the client read %q; want its connection closed", line)
	}
	if l.Held() != 0 || l.Open() != 0 {
		t.Errorf("after Close: Held %d, Open %d; want 0 and 0", l.Held(), l.Open())
	}
}

func TestServeClosesTheClientOfAServerDown(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := ln.Addr().String()
	ln.Close()
	l := lineProxy(t, down)
	defer l.Close()
	client, err := net.Dial("tcp", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	if _, err := io.ReadAll(client); err != nil {
		t.Errorf("reading a session whose server is down: %v; want its connection closed", err)
	}
	if l.Peak() != 0 {
		t.Errorf("Peak %d; want 0: no session reached the server", l.Peak())
	}
}
