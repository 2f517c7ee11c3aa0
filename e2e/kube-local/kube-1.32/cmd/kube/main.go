// The kube multi-call binary of Kubernetes 1.32: ../../../cmd/kube/main.go but for the two calls whose signatures
// changed after 1.32 (kubectl's verbosity hook, which kubectl v0.32 lacks; NewKubeletCommand without a context).
// Command kube is one binary for the whole Kubernetes of the local cluster (like the old hyperkube): it runs
// kube-apiserver, kube-controller-manager, kube-scheduler, kubelet or kubectl, chosen by the name it is called by
// (a symlink) or by its first argument. One binary links the shared packages once: smaller and faster to build.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	kubectlcmd "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	scheduler "k8s.io/kubernetes/cmd/kube-scheduler/app"
	kubelet "k8s.io/kubernetes/cmd/kubelet/app"
)

var commands = map[string]func() *cobra.Command{
	"kube-apiserver":          apiserver.NewAPIServerCommand,
	"kube-controller-manager": controllermanager.NewControllerManagerCommand,
	"kube-scheduler":          func() *cobra.Command { return scheduler.NewSchedulerCommand() },
	"kubelet":                 kubelet.NewKubeletCommand,
}

func main() {
	name := filepath.Base(os.Args[0])
	if _, known := commands[name]; !known && name != "kubectl" {
		if len(os.Args) < 2 {
			fmt.Fprintln(os.Stderr, "usage: kube kube-apiserver|kube-controller-manager|kube-scheduler|kubelet|kubectl [flags]")
			os.Exit(2)
		}
		name = os.Args[1]
		os.Args = os.Args[1:]
	}
	if name == "kubectl" {
		// kubectl v0.32 has no GetLogVerbosity (its -v is applied by cobra alone).
		if err := cli.RunNoErrOutput(kubectlcmd.NewDefaultKubectlCommand()); err != nil {
			kubectlutil.CheckErr(err)
		}
		return
	}
	newCommand, known := commands[name]
	if !known {
		fmt.Fprintln(os.Stderr, "kube: unknown command", name)
		os.Exit(2)
	}
	os.Exit(cli.Run(newCommand()))
}
