// Command echoserver is the service the process target's tests start. It
// answers every request with its PID and what it was started with, and
// misbehaves on command.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"
)

// Answer is what echoserver answers to every request.
type Answer struct {
	PID         int      `json:"pid"`
	ChildPID    int      `json:"child_pid"`
	Args        []string `json:"args"`
	PortEnv     string   `json:"port_env"`
	DatabaseURL string   `json:"database_url"`
	Extra       string   `json:"extra"` // $ECHO_EXTRA
}

func main() {
	listen := flag.String("listen", "", "address to listen on (default 127.0.0.1:$PORT)")
	flag.String("tag", "", "ignored; echoed back with the other arguments")
	exitNow := flag.Bool("exit-now", false, "print 40 lines and exit 3 without listening")
	exitAfter := flag.Duration("exit-after", 0, "exit 4 this long after listening")
	ignoreTerm := flag.Bool("ignore-term", false, "ignore SIGTERM")
	spawn := flag.Bool("spawn-child", false, "start a child in our process group that outlives us unless the group is killed")
	noListen := flag.Bool("no-listen", false, "never listen")
	readyAfter := flag.Duration("ready-after", 0, "answer /healthz with 503 until this long after start")
	starts := flag.String("starts", "", "append $PORT to this file at every start")
	busyAddr := flag.String("busy-addr", "", "with -starts: listen here (an address held by someone else) instead, as if our port were taken")
	busyTimes := flag.Int("busy-times", 0, "with -busy-addr: only in the first this many starts")
	squatTimes := flag.Int("squat-times", 0, "with -starts: in the first this many starts, have a process outside our group listen on $PORT and do not listen ourselves")
	sleep := flag.Bool("sleep", false, "(the spawned child) sleep until killed")
	flag.Parse()
	say := func(format string, args ...any) { fmt.Fprintf(os.Stderr, "echoserver: "+format+"\n", args...) }

	if *sleep {
		select {}
	}
	started := time.Now()
	childPID := 0
	if *spawn {
		childPID = spawnChild(say)
	}
	if *starts != "" && countStart(*starts, *busyAddr, *busyTimes, *squatTimes, say) {
		*noListen = true
	}
	if *exitNow {
		for i := 1; i <= 40; i++ {
			say("output line %d", i)
		}
		say("exiting at once as told, leaving child pid %d", childPID)
		os.Exit(3)
	}
	if *ignoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	term := make(chan os.Signal, 1)
	if !*ignoreTerm {
		signal.Notify(term, syscall.SIGTERM)
	}
	if *noListen {
		say("pid %d not listening", os.Getpid())
		<-term
		say("SIGTERM, shutting down")
		return
	}

	addr := *listen
	if addr == "" {
		addr = "127.0.0.1:" + os.Getenv("PORT")
	}
	answer := Answer{
		PID: os.Getpid(), ChildPID: childPID, Args: os.Args[1:],
		PortEnv: os.Getenv("PORT"), DatabaseURL: os.Getenv("DATABASE_URL"), Extra: os.Getenv("ECHO_EXTRA"),
	}
	serve(addr, answer, started, *readyAfter, *exitAfter, term, say)
}

// spawnChild starts a child in our process group that sleeps until
// killed, as a wrapper script's child would, and returns its PID.
func spawnChild(say func(string, ...any)) int {
	self, err := os.Executable()
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	child := exec.Command(self, "-sleep")
	child.Stdout, child.Stderr = os.Stdout, os.Stderr // as a wrapper's child would
	if err := child.Start(); err != nil {
		say("spawn: %v", err)
		os.Exit(1)
	}
	say("spawned child pid %d", child.Process.Pid)
	return child.Process.Pid
}

// countStart appends $PORT to the starts file and misbehaves in the first
// starts as told: in the first busyTimes it exits as if its port were
// taken (listening on busyAddr, held by someone else); in the first
// squatTimes it has another process take the port and reports true, so
// that it does not listen itself.
func countStart(starts, busyAddr string, busyTimes, squatTimes int, say func(string, ...any)) (squatted bool) {
	f, err := os.OpenFile(starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, os.Getenv("PORT"))
		f.Close()
	}
	b, _ := os.ReadFile(starts)
	n := strings.Count(string(b), "\n")
	if busyAddr != "" && n <= busyTimes {
		_, err := net.Listen("tcp", busyAddr)
		say("start %d: %v", n, err)
		os.Exit(1)
	}
	if n <= squatTimes {
		squat(say)
		return true
	}
	return false
}

// serve answers every request on addr with answer (/healthz with 503
// until readyAfter since started) until SIGTERM, or exits 4 after
// exitAfter when that is set.
func serve(addr string, answer Answer, started time.Time, readyAfter, exitAfter time.Duration, term <-chan os.Signal, say func(string, ...any)) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	say("pid %d listening on %s", os.Getpid(), l.Addr())
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && time.Since(started) < readyAfter {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		json.NewEncoder(w).Encode(answer)
	})}
	go func() {
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			say("serve: %v", err)
			os.Exit(1)
		}
	}()
	var exit <-chan time.Time
	if exitAfter > 0 {
		exit = time.After(exitAfter)
	}
	select {
	case <-term:
		// The spawned child is left running, as a careless wrapper would.
		say("SIGTERM, shutting down")
		srv.Close()
	case <-exit:
		say("exiting on my own after %s", exitAfter)
		os.Exit(4)
	}
}

// squat starts another echoserver on $PORT in a process group of its own,
// as an unrelated process that took our port would be, and waits until it
// listens. It dies with us.
func squat(say func(string, ...any)) {
	self, err := os.Executable()
	if err != nil {
		say("%v", err)
		os.Exit(1)
	}
	squatter := exec.Command(self)
	squatter.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := squatter.Start(); err != nil {
		say("squat: %v", err)
		os.Exit(1)
	}
	// Said before it listens: once it does, the supervisor may find the
	// port taken and kill us within milliseconds, before a line after.
	say("squatter pid %d takes our port %s", squatter.Process.Pid, os.Getenv("PORT"))
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if conn, err := net.Dial("tcp", "127.0.0.1:"+os.Getenv("PORT")); err == nil {
			conn.Close()
			break
		}
		if time.Now().After(deadline) {
			say("squatter did not listen")
			os.Exit(1)
		}
	}
	say("squatter listens on our port")
}
