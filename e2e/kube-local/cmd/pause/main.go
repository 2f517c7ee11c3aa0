// Command pause is the pod sandbox process of the local cluster's containerd (its sandbox_image), made here so that
// nothing is pulled from a registry: it waits for SIGINT/SIGTERM and reaps the zombies of the pod's PID namespace.
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	signals := make(chan os.Signal, 8)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range signals {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var status syscall.WaitStatus
			if pid, _ := syscall.Wait4(-1, &status, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
	}
}
