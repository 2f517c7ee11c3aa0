// Command hostpod runs the containers of one pod as host processes, the way the kubelet would run them: every
// container is restarted when it exits (restartPolicy Always, with a back-off), its output goes to a log file of its
// own, its PID is written to <run-dir>/<container>.pid, and SIGTERM stops them all within a grace period. Started
// under `unshare --uts`, it gives the pod a host name of its own (--hostname): the kubernetes-csi sidecars take
// os.Hostname() as their leader-election identity, so two replicas on one host need two UTS namespaces.
//
// A container that dies with its pod: every child gets PR_SET_PDEATHSIG=SIGKILL, so killing hostpod with SIGKILL
// (a crashed node, a killed replica) takes its containers with it, as a killed pod sandbox would.
//
// Usage: hostpod --spec pod.json   where pod.json is
//
//	{"name": "...", "hostname": "...", "runDir": "...", "logDir": "...", "graceSeconds": 30, "directories": [...],
//	 "containers": [{"name": "...", "command": ["/path", "arg", ...], "env": ["K=V", ...], "dir": "..."}]}
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

type containerSpec struct {
	Name    string   `json:"name"`
	Command []string `json:"command"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
}

type podSpec struct {
	Name         string          `json:"name"`
	Hostname     string          `json:"hostname"`
	RunDir       string          `json:"runDir"`
	LogDir       string          `json:"logDir"`
	GraceSeconds int             `json:"graceSeconds"`
	Directories  []string        `json:"directories"`
	Containers   []containerSpec `json:"containers"`
}

type container struct {
	spec     containerSpec
	mu       sync.Mutex
	cmd      *exec.Cmd
	restarts int
}

var stopping = make(chan struct{})

func main() {
	specPath := flag.String("spec", "", "the pod spec (JSON)")
	flag.Parse()
	raw, err := os.ReadFile(*specPath)
	if err != nil {
		fail("cannot read --spec: %v", err)
	}
	var pod podSpec
	if err := json.Unmarshal(raw, &pod); err != nil {
		fail("bad spec %s: %v", *specPath, err)
	}
	if pod.Hostname != "" {
		if err := syscall.Sethostname([]byte(pod.Hostname)); err != nil {
			fail("cannot set the host name %q (start hostpod under `unshare --uts`): %v", pod.Hostname, err)
		}
	}
	if pod.GraceSeconds <= 0 {
		pod.GraceSeconds = 30
	}
	// The pod's volumes: directories that exist before any container starts, as the kubelet makes them.
	for _, d := range append([]string{pod.RunDir, pod.LogDir}, pod.Directories...) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fail("cannot create %s: %v", d, err)
		}
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	containers := make([]*container, 0, len(pod.Containers))
	var wg sync.WaitGroup
	for _, s := range pod.Containers {
		c := &container{spec: s}
		containers = append(containers, c)
		wg.Add(1)
		go func() { defer wg.Done(); c.run(pod) }()
	}
	<-signals
	close(stopping)
	say(pod.Name, "stopping: SIGTERM to every container, %d s grace", pod.GraceSeconds)
	for _, c := range containers {
		c.signal(syscall.SIGTERM)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Duration(pod.GraceSeconds) * time.Second):
		for _, c := range containers {
			c.signal(syscall.SIGKILL)
		}
		<-done
	}
	say(pod.Name, "stopped")
}

// run starts the container and starts it again whenever it exits, until the pod stops. The back-off doubles from
// 1 s to 10 s and starts over after a run of 30 s or more, like the kubelet's CrashLoopBackOff (shorter).
func (c *container) run(pod podSpec) {
	backoff := time.Second
	pidFile := filepath.Join(pod.RunDir, c.spec.Name+".pid")
	for {
		logFile, err := os.OpenFile(filepath.Join(pod.LogDir, c.spec.Name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			say(pod.Name, "container %s: cannot open its log: %v", c.spec.Name, err)
			return
		}
		cmd := exec.Command(c.spec.Command[0], c.spec.Command[1:]...)
		cmd.Env = c.spec.Env
		cmd.Dir = c.spec.Dir
		cmd.Stdout, cmd.Stderr = logFile, logFile
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
		c.mu.Lock()
		select {
		case <-stopping:
			c.mu.Unlock()
			logFile.Close()
			return
		default:
		}
		started := time.Now()
		err = cmd.Start()
		if err == nil {
			c.cmd = cmd
			_ = os.WriteFile(pidFile, []byte(strconv.Itoa(cmd.Process.Pid)+"\n"), 0o644)
		}
		c.mu.Unlock()
		if err != nil {
			say(pod.Name, "container %s: cannot start: %v", c.spec.Name, err)
		} else {
			say(pod.Name, "container %s started (pid %d, restarts %d)", c.spec.Name, cmd.Process.Pid, c.restarts)
			err = cmd.Wait()
			say(pod.Name, "container %s exited: %v", c.spec.Name, exitText(err))
		}
		logFile.Close()
		c.mu.Lock()
		c.cmd = nil
		c.mu.Unlock()
		_ = os.Remove(pidFile)
		if time.Since(started) > 30*time.Second {
			backoff = time.Second
		}
		select {
		case <-stopping:
			return
		case <-time.After(backoff):
		}
		c.restarts++
		_ = os.WriteFile(filepath.Join(pod.RunDir, c.spec.Name+".restarts"), []byte(strconv.Itoa(c.restarts)+"\n"), 0o644)
		if backoff < 10*time.Second {
			backoff *= 2
		}
	}
}

func (c *container) signal(s syscall.Signal) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cmd != nil && c.cmd.Process != nil {
		// The whole process group: a launcher script and the JVM it runs both get it.
		_ = syscall.Kill(-c.cmd.Process.Pid, s)
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit code 0"
	}
	return err.Error()
}

func say(pod, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s hostpod %s: %s\n", time.Now().Format("15:04:05.000"), pod, fmt.Sprintf(format, args...))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "hostpod: "+format+"\n", args...)
	os.Exit(2)
}
