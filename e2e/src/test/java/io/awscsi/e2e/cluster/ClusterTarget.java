package io.awscsi.e2e.cluster;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.Map;
import java.util.Optional;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.efs.EfsClient;

/**
 * The cluster the suite runs against: the local cluster of {@code e2e/kube-local} ({@code E2E_LOCAL_CLUSTER}: the
 * driver already deployed by the harness, AWS emulated) or a real EKS cluster ({@code KUBECONFIG}, AWS credentials,
 * {@code E2E_IMAGE}: the chart installed by the suite). The cases are the same; what only one target can do (inject
 * an EC2 fault, count packets on the host) is offered by {@link Local} alone and skipped elsewhere with the reason.
 */
sealed interface ClusterTarget {

  String DEFAULT_BUSYBOX = "public.ecr.aws/docker/library/busybox:1.37";

  static ClusterTarget fromEnvironment(Map<String, String> env) {
    Optional<LocalCluster> local = LocalCluster.fromEnvironment(env);
    if (local.isPresent()) {
      return new Local(local.get());
    }
    return new Eks(env);
  }

  KubernetesClient newClient();

  /** The test pods' image. */
  String busyboxImage();

  /** The EFS file system the chart's efs-sc class uses, if any. */
  Optional<String> fileSystemId();

  Ec2Client ec2();

  EfsClient efs();

  DriverDeployment driver(KubernetesClient client);

  String describe();

  record Local(LocalCluster cluster) implements ClusterTarget {

    @Override
    public KubernetesClient newClient() {
      try {
        Config config = Config.fromKubeconfig(Files.readString(cluster.kubeconfig()));
        config.setRequestTimeout(30_000);
        return new KubernetesClientBuilder().withConfig(config).build();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + cluster.kubeconfig(), e);
      }
    }

    @Override
    public String busyboxImage() {
      return cluster.busyboxImage();
    }

    @Override
    public Optional<String> fileSystemId() {
      return Optional.of(cluster.fileSystemId());
    }

    @Override
    public Ec2Client ec2() {
      return cluster.ec2();
    }

    @Override
    public EfsClient efs() {
      return cluster.efs();
    }

    @Override
    public DriverDeployment driver(KubernetesClient client) {
      return cluster.hostProcesses() ? new DriverDeployment.HostPods(cluster)
          : new DriverDeployment.ChartPods(client, ClusterFixture.DRIVER_NAMESPACE);
    }

    @Override
    public String describe() {
      return "local cluster (" + cluster.file() + ", driver as " + (cluster.hostProcesses() ? "host processes"
          : "the chart's pods") + ")";
    }
  }

  record Eks(Map<String, String> env) implements ClusterTarget {

    @Override
    public KubernetesClient newClient() {
      return new KubernetesClientBuilder().build();
    }

    @Override
    public String busyboxImage() {
      return env.getOrDefault("E2E_BUSYBOX_IMAGE", DEFAULT_BUSYBOX);
    }

    @Override
    public Optional<String> fileSystemId() {
      return Optional.ofNullable(env.get("E2E_EFS_FILESYSTEM_ID")).filter(s -> !s.isBlank());
    }

    @Override
    public Ec2Client ec2() {
      return Ec2Client.create();
    }

    @Override
    public EfsClient efs() {
      return EfsClient.create();
    }

    @Override
    public DriverDeployment driver(KubernetesClient client) {
      return new DriverDeployment.ChartPods(client, ClusterFixture.DRIVER_NAMESPACE);
    }

    @Override
    public String describe() {
      return "EKS cluster of KUBECONFIG, chart installed with E2E_IMAGE";
    }
  }
}
