package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/distlock/fencing-demo/internal/testkit"
)

// The scenarios are the embedded scenarios.yaml, read at start: a mistake in
// it stops the program with the file and the line, before it listens.
func TestBrokenScenariosStopTheStart(t *testing.T) {
	good := scenariosYAML
	t.Cleanup(func() { scenariosYAML = good })
	broken := bytes.Replace(good, []byte("      - A write A"), []byte("      - A fly A"), 1)
	if bytes.Equal(broken, good) {
		t.Fatal(`scenarios.yaml has no "      - A write A" to break`)
	}
	scenariosYAML = broken
	line := 1 + bytes.Count(broken[:bytes.Index(broken, []byte("A fly A"))], []byte("\n"))
	var log testkit.LockedBuffer
	err := run(context.Background(), []string{"-port", testkit.FreePort(t)}, func(string) string { return "" }, &log)
	if err == nil {
		t.Fatal("run started with a broken scenarios.yaml")
	}
	if want := "scenarios.yaml:" + strconv.Itoa(line) + ": "; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("err=%q, want it to start with %q", err, want)
	}
}

// What a lecturer does: edit scenarios.yaml, build, start. The build sees
// the edited file through -overlay, as it would see the file edited in
// place, so the test leaves the working tree alone. An edit is served; a
// broken edit stops the program with the file and line, exit status 1.
func TestEditedScenariosAreServed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the program twice: skipped with -short")
	}
	src, err := os.ReadFile("scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const old, edited = "Nobody holds the lock yet. The resource row-42 is empty.", "Edited by the lecturer, nobody holds the lock."
	if !bytes.Contains(src, []byte(old)) {
		t.Fatalf("scenarios.yaml has no %q to edit", old)
	}
	bin := buildEdited(t, bytes.Replace(src, []byte(old), []byte(edited), 1))
	port := testkit.FreePort(t)
	cmd := exec.Command(bin, "-port", port)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	testkit.WaitHealthy(t, port, 10*time.Second)
	resp, err := http.Get("http://127.0.0.1:" + port + "/scenarios/gc-pause?lang=en")
	if err != nil {
		t.Fatal(err)
	}
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /scenarios/gc-pause: status %d, %v", resp.StatusCode, err)
	}
	if !bytes.Contains(page, []byte(edited)) || bytes.Contains(page, []byte(old)) {
		t.Fatalf("the page does not show the edited narration %q", edited)
	}

	broken := bytes.Replace(src, []byte(old), []byte("Edited: with a colon that YAML reads as a key"), 1)
	line := 1 + bytes.Count(src[:bytes.Index(src, []byte(old))], []byte("\n"))
	var stderr bytes.Buffer
	cmd = exec.Command(buildEdited(t, broken), "-port", testkit.FreePort(t))
	cmd.Stderr = &stderr
	err = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
		t.Fatalf("with a broken scenarios.yaml: exit status %d (%v), want 1", code, err)
	}
	if want := "fencing-demo: scenarios.yaml:" + strconv.Itoa(line) + ": "; !strings.HasPrefix(stderr.String(), want) {
		t.Fatalf("stderr=%q, want it to start with %q", stderr.String(), want)
	}
}

// buildEdited builds the program with scenarios.yaml replaced by yaml.
func buildEdited(t *testing.T, yaml []byte) string {
	t.Helper()
	dir := t.TempDir()
	here, err := filepath.Abs("scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited, overlay, bin := filepath.Join(dir, "scenarios.yaml"), filepath.Join(dir, "overlay.json"), filepath.Join(dir, "fencing-demo")
	if err := os.WriteFile(edited, yaml, 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ := json.Marshal(map[string]map[string]string{"Replace": {here: edited}})
	if err := os.WriteFile(overlay, o, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "build", "-overlay", overlay, "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A word the program does not know, where a subcommand would go, is a usage
// error, exit status 2, and nothing starts: flag parsing stops at the first
// word that is not a flag, so the flags after it were once dropped and the
// server started on 8080 anyway.
func TestUnknownCommandIsAUsageError(t *testing.T) {
	port := testkit.FreePort(t)
	var stderr testkit.LockedBuffer
	err := run(context.Background(), []string{"bogus", "-port", port}, func(string) string { return "" }, &stderr)
	if got := exitCode(err); got != 2 {
		t.Fatalf("run(bogus -port %s)=%v, exit status %d, want 2", port, err, got)
	}
	if !strings.Contains(err.Error(), `"bogus"`) || !strings.Contains(stderr.String(), "usage: fencing-demo") {
		t.Fatalf("err=%v, stderr=%q: want the word named and the usage", err, stderr.String())
	}
	for args, want := range map[string]int{"-no-such-flag": 2, "-max-runs 0": 1, "-h": 0} {
		err := run(context.Background(), strings.Fields(args), func(string) string { return "" }, io.Discard)
		if got := exitCode(err); got != want {
			t.Errorf("run(%s)=%v: exit status %d, want %d", args, err, got, want)
		}
	}
	if testing.Short() {
		return
	}
	// The built program, as an operator runs it.
	src, err := os.ReadFile("scenarios.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(buildEdited(t, src), "bogus", "-port", port)
	var out bytes.Buffer
	cmd.Stderr = &out
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("fencing-demo bogus -port %s: %v, exit status %d, want 2; stderr:\n%s", port, err, cmd.ProcessState.ExitCode(), out.String())
	}
}
