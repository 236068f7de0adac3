package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/distlock/fencing-demo/demo"
	"github.com/distlock/fencing-demo/internal/hall"
)

// The hostile command's attackers run as a process of their own at the
// lowest priority (nice 19): on this one machine they stand for other
// people's machines, whose CPU the servers never share, so the lecturer's
// click is measured against what the attack costs the balancer and the
// replicas, not against the attackers' own work of making it.

// attackRun is that process ("hostile-attack"): hall.Attack on -base's
// lecture -link until it is told to stop (SIGTERM); it says "ready" once
// the connections are held, and at the end prints what it got (JSON).
func attackRun(ctx context.Context, sc *demo.Scenario, args []string, stdout, stderr io.Writer) error {
	fl := flag.NewFlagSet("hostile-attack", flag.ContinueOnError)
	fl.SetOutput(stderr)
	base := fl.String("base", "", "the balancer")
	link := fl.String("link", "", "the lecture's follow link")
	conns := fl.Int("conns", 1000, "connections each holding address keeps")
	workers := fl.Int("workers", 32, "requests at once from each flooding address")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if _, err := loopbackTarget(*base); err != nil || *link == "" {
		return errors.New("-base http://127.0.0.1:PORT and -link /follow/<id>")
	}
	var wg sync.WaitGroup
	e := hall.Attack(ctx, &wg, *base, *link, sc, *conns, *workers)
	for deadline := time.Now().Add(20 * time.Second); e.Held.Load() < int64(5**conns) && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(100 * time.Millisecond) // the holders' own goroutines: nothing to wait on
	}
	fmt.Fprintln(stdout, "ready")
	<-ctx.Done()
	wg.Wait()
	return json.NewEncoder(stdout).Encode(e.Report())
}

// attackers is the attack process, seen from the hostile command.
type attackers struct {
	cmd *exec.Cmd
	out *bufio.Reader
}

// startAttackers starts the attack process at nice 19 and waits until its
// connections are held.
func startAttackers(base, link string, conns, workers int) (*attackers, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command("nice", "-n", "19", exe, "hostile-attack", "-base", base, "-link", link,
		"-conns", strconv.Itoa(conns), "-workers", strconv.Itoa(workers))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	a := &attackers{cmd: cmd, out: bufio.NewReader(pipe)}
	if line, err := a.out.ReadString('\n'); err != nil || line != "ready\n" {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the attackers: %q %v", line, err)
	}
	return a, nil
}

// stop ends the attack and returns what it got, and the CPU time it took
// (at nice 19).
func (a *attackers) stop() (hall.Report, error) {
	cpu := cpuSeconds(a.cmd.Process.Pid)
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	var r hall.Report
	err := json.NewDecoder(a.out).Decode(&r)
	if werr := a.cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	r.CPU = cpu
	return r, err
}
