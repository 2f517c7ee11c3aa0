package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.ExecWatch;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * One test's view of the cluster ({@link ClusterTarget}: the local cluster of e2e/kube-local or EKS): a fabric8
 * client, a namespace of its own (random name, deleted with everything in it on {@link #close()}), the cluster-scoped
 * objects the case made (deleted too), and on EKS the chart installed once per run with the image from
 * {@code E2E_IMAGE} (the local harness deploys the driver itself). Builders for the PVCs and pods the cases use, exec
 * into them, and on {@link #close()} the teardown check: every PV, VolumeAttachment, EC2 volume and snapshot, access
 * point, loop device and mount of the case's volumes is gone.
 */
final class ClusterFixture implements AutoCloseable {

  static final String RELEASE = "aws-csi-driver";
  static final String DRIVER_NAMESPACE = "kube-system";
  static final String GP3 = "gp3";
  static final String EFS_CLASS = "efs-sc";
  static final String SNAPSHOT_CLASS = "ebs-vsc";
  static final String MOUNT = "/data";
  static final Duration POD_READY = Duration.ofMinutes(5);

  private static boolean installed;
  private static ClusterTarget target;

  final KubernetesClient client;
  final String namespace;
  final Teardown teardown;
  private final List<HasMetadata> clusterScoped = new ArrayList<>();

  private ClusterFixture(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
    this.teardown = new Teardown(this);
    CURRENT.set(this);
  }

  /** The fixture of the case running on this thread, for {@link DumpOnFailure}. */
  static final ThreadLocal<ClusterFixture> CURRENT = new ThreadLocal<>();

  static synchronized ClusterTarget target() {
    if (target == null) {
      target = ClusterTarget.fromEnvironment(System.getenv());
      System.out.println("cluster suite target: " + target.describe());
    }
    return target;
  }

  static ClusterFixture open() {
    if (target() instanceof ClusterTarget.Eks) {
      installChartOnce(System.getenv());
    }
    KubernetesClient client = target().newClient();
    String namespace = "aws-csi-e2e-" + UUID.randomUUID().toString().substring(0, 8);
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace)
        .addToLabels("app.kubernetes.io/part-of", "aws-csi-e2e").endMetadata().build()).create();
    // Pods need the namespace's default service account (the service-account controller makes it).
    Eventually.await("service account default in " + namespace, Duration.ofMinutes(1),
        () -> client.serviceAccounts().inNamespace(namespace).withName("default").get() != null);
    return new ClusterFixture(client, namespace);
  }

  /** Creates a cluster-scoped object (StorageClass, VolumeAttributesClass, PV) that {@link #close()} deletes. */
  <T extends HasMetadata> T createClusterScoped(T object) {
    T created = client.resource(object).create();
    clusterScoped.add(created);
    return created;
  }

  DriverDeployment driver() {
    return target().driver(client);
  }

  boolean local() {
    return target() instanceof ClusterTarget.Local;
  }

  LocalCluster localCluster() {
    if (target() instanceof ClusterTarget.Local l) {
      return l.cluster();
    }
    throw new IllegalStateException("not the local cluster");
  }

  /** {@code helm upgrade --install} of this repository's chart, once per JVM, waiting for its pods. */
  private static synchronized void installChartOnce(Map<String, String> env) {
    if (installed) {
      return;
    }
    String image = env.get("E2E_IMAGE");
    int colon = image.lastIndexOf(':');
    if (colon < 0 || colon < image.lastIndexOf('/')) {
      throw new IllegalArgumentException("E2E_IMAGE must be repository:tag, got " + image);
    }
    List<String> command = new ArrayList<>(List.of(helm(env), "upgrade", "--install", RELEASE,
        chartDirectory().toString(), "-n", DRIVER_NAMESPACE, "--wait", "--timeout", "10m",
        "--set", "image.repository=" + image.substring(0, colon), "--set", "image.tag=" + image.substring(colon + 1),
        // The chart, like upstream's, makes no classes unless asked: the cases use gp3 and ebs-vsc (the default class
        // is upstream's ebs-csi-default-sc, unencrypted, unless named and given parameters).
        "--set", "defaultStorageClass.enabled=true", "--set", "defaultStorageClass.name=" + GP3,
        "--set", "defaultStorageClass.parameters.type=gp3", "--set-string", "defaultStorageClass.parameters.encrypted=true",
        "--set", "defaultVolumeSnapshotClass.enabled=true"));
    String fileSystemId = env.get("E2E_EFS_FILESYSTEM_ID");
    if (fileSystemId != null && !fileSystemId.isBlank()) {
      command.addAll(List.of("--set", "efs.enabled=true", "--set", "efsStorageClass.fileSystemId=" + fileSystemId));
    }
    String region = env.get("AWS_REGION");
    if (region != null && !region.isBlank()) {
      command.addAll(List.of("--set", "region=" + region));
    }
    run(command, Duration.ofMinutes(12));
    installed = true;
  }

  /** {@code HELM}, else helm on PATH, else the one helm/tests/run.sh installs. */
  static String helm(Map<String, String> env) {
    String fromEnv = env.get("HELM");
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    for (String dir : env.getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "helm"))) {
        return Path.of(dir, "helm").toString();
      }
    }
    Path projectHelm = chartDirectory().resolveSibling("tests").resolve(".tools/bin/helm");
    if (Files.isExecutable(projectHelm)) {
      return projectHelm.toString();
    }
    throw new IllegalStateException("no helm: set HELM, put helm on PATH, or run helm/tests/run.sh once"
        + " (it installs helm into helm/tests/.tools/bin)");
  }

  static Path chartDirectory() {
    // Maven runs tests in the e2e module directory; an IDE may run them from the repository root.
    for (Path candidate : List.of(Path.of("../helm/aws-csi-driver"), Path.of("helm/aws-csi-driver"))) {
      if (Files.isRegularFile(candidate.resolve("Chart.yaml"))) {
        return candidate.toAbsolutePath().normalize();
      }
    }
    throw new IllegalStateException("chart helm/aws-csi-driver not found from " + Path.of("").toAbsolutePath());
  }

  private static void run(List<String> command, Duration timeout) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
        p.destroyForcibly();
        throw new IllegalStateException(String.join(" ", command) + " failed:\n" + out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("could not run " + command.getFirst() + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + command.getFirst(), e);
    }
  }

  PersistentVolumeClaim createPvc(String name, String storageClass, String size, String accessMode) {
    return createPvc(new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withStorageClassName(storageClass).withAccessModes(accessMode)
        .withNewResources().addToRequests("storage", new Quantity(size)).endResources().endSpec().build());
  }

  PersistentVolumeClaim createPvc(PersistentVolumeClaim pvc) {
    return client.persistentVolumeClaims().inNamespace(namespace).resource(pvc).create();
  }

  /** A busybox pod that mounts {@code pvc} at {@link #MOUNT} and runs {@code script}; {@code node} pins it if given. */
  static PodSpec podSpec(String pvc, String script, String node) {
    PodSpecBuilder spec = new PodSpecBuilder().withTerminationGracePeriodSeconds(5L)
        .addNewContainer().withName("app").withImage(target().busyboxImage()).withImagePullPolicy("IfNotPresent")
        .withCommand("sh", "-c", script)
        .addNewVolumeMount().withName("data").withMountPath(MOUNT).endVolumeMount().endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName(pvc).endPersistentVolumeClaim()
        .endVolume();
    if (node != null) {
      // Affinity rather than nodeName, so the scheduler still runs and WaitForFirstConsumer volumes get bound.
      spec.withNewAffinity().withNewNodeAffinity().withNewRequiredDuringSchedulingIgnoredDuringExecution()
          .addNewNodeSelectorTerm().addNewMatchExpression().withKey("kubernetes.io/hostname").withOperator("In")
          .withValues(node).endMatchExpression().endNodeSelectorTerm()
          .endRequiredDuringSchedulingIgnoredDuringExecution().endNodeAffinity().endAffinity();
    }
    return spec.build();
  }

  Pod startPod(String name, String pvc, String script, String node) {
    createPod(name, pvc, script, node);
    return awaitReady(name);
  }

  Pod createPod(String name, String pvc, String script, String node) {
    return client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(name)
        .endMetadata().withSpec(podSpec(pvc, script, node)).build()).create();
  }

  PersistentVolumeClaim pvc(String name) {
    return client.persistentVolumeClaims().inNamespace(namespace).withName(name).get();
  }

  /** Waits until the claim is Bound and returns its PV. */
  PersistentVolume awaitBound(String pvc) {
    Eventually.await("PVC " + pvc + " Bound", Duration.ofMinutes(3), () -> "Bound".equals(pvc(pvc).getStatus()
        .getPhase()));
    return client.persistentVolumes().withName(pvc(pvc).getSpec().getVolumeName()).get();
  }

  /** The topology a PV requires: key to value of its node affinity's first term. */
  static Map<String, String> requiredTopology(PersistentVolume pv) {
    Map<String, String> required = new java.util.TreeMap<>();
    if (pv.getSpec().getNodeAffinity() != null && pv.getSpec().getNodeAffinity().getRequired() != null) {
      pv.getSpec().getNodeAffinity().getRequired().getNodeSelectorTerms().getFirst().getMatchExpressions()
          .forEach(e -> required.put(e.getKey(), e.getValues().getFirst()));
    }
    return required;
  }

  /** Waits for the VolumeAttachment of {@code pv} on {@code node} to be attached. */
  VolumeAttachment awaitAttached(String pv, String node) {
    Eventually.await("VolumeAttachment of " + pv + " on " + node + " attached", Duration.ofMinutes(3),
        () -> attachment(pv, node).map(va -> va.getStatus() != null && Boolean.TRUE.equals(va.getStatus()
            .getAttached())).orElse(false));
    return attachment(pv, node).orElseThrow();
  }

  java.util.Optional<VolumeAttachment> attachment(String pv, String node) {
    return client.storage().v1().volumeAttachments().list().getItems().stream()
        .filter(va -> pv.equals(va.getSpec().getSource().getPersistentVolumeName())
            && node.equals(va.getSpec().getNodeName())).findFirst();
  }

  /** Events of the case's namespace. */
  List<Event> events() {
    return client.v1().events().inNamespace(namespace).list().getItems();
  }

  List<Event> eventsOf(String kind, String name) {
    return events().stream().filter(e -> kind.equals(e.getInvolvedObject().getKind())
        && name.equals(e.getInvolvedObject().getName())).toList();
  }

  int restarts(String pod) {
    return client.pods().inNamespace(namespace).withName(pod).get().getStatus().getContainerStatuses().getFirst()
        .getRestartCount();
  }

  /**
   * A StorageClass of this case (deleted on {@link #close()}): {@code <namespace>-<suffix>}, EBS unless the
   * parameters name an EFS provisioning mode, expandable, reclaim policy Delete.
   */
  String storageClass(String suffix, Map<String, String> parameters, String bindingMode) {
    String name = namespace + "-" + suffix;
    boolean efs = parameters.containsKey("provisioningMode");
    createClusterScoped(new StorageClassBuilder().withNewMetadata().withName(name).endMetadata()
        .withProvisioner(efs ? "efs.csi.aws.com" : "ebs.csi.aws.com").withParameters(parameters)
        .withVolumeBindingMode(bindingMode).withReclaimPolicy("Delete").withAllowVolumeExpansion(!efs).build());
    return name;
  }

  Pod startSleeper(String name, String pvc) {
    return startPod(name, pvc, "sleep 86400", null);
  }

  Pod awaitReady(String pod) {
    return awaitReady(pod, POD_READY);
  }

  Pod awaitReady(String pod, Duration timeout) {
    Eventually.await("pod " + namespace + "/" + pod + " ready", timeout, () -> {
      Pod p = client.pods().inNamespace(namespace).withName(pod).get();
      return p != null && Readiness.isPodReady(p);
    });
    return client.pods().inNamespace(namespace).withName(pod).get();
  }

  void deletePod(String pod) {
    client.pods().inNamespace(namespace).withName(pod).delete();
    Eventually.await("pod " + pod + " gone", POD_READY,
        () -> client.pods().inNamespace(namespace).withName(pod).get() == null);
  }

  /** Runs {@code sh -c script} in the pod's container and returns its stdout; a non-zero exit fails the test. */
  String exec(String pod, String script) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (ExecWatch watch = client.pods().inNamespace(namespace).withName(pod).inContainer("app")
        .writingOutput(out).writingError(err).exec("sh", "-c", script)) {
      int code = watch.exitCode().get(2, TimeUnit.MINUTES);
      assertThat(code).as("exit code of '%s' in %s: %s", script, pod, err.toString(StandardCharsets.UTF_8))
          .isZero();
      return out.toString(StandardCharsets.UTF_8).trim();
    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new AssertionError("exec '" + script + "' in " + pod + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted exec in " + pod, e);
    }
  }

  String nodeOf(String pod) {
    return client.pods().inNamespace(namespace).withName(pod).get().getSpec().getNodeName();
  }

  /** Ready, schedulable worker nodes. */
  List<Node> schedulableNodes() {
    return client.nodes().list().getItems().stream()
        .filter(n -> !Boolean.TRUE.equals(n.getSpec().getUnschedulable()))
        .filter(Readiness::isNodeReady)
        .toList();
  }

  /**
   * The API server serves {@code kind} in {@code groupVersion} (discovery): what differs between Kubernetes minors,
   * e.g. VolumeAttributesClass is {@code storage.k8s.io/v1} from 1.34 and {@code v1beta1} (when enabled) before.
   */
  boolean serves(String groupVersion, String kind) {
    try {
      var resources = client.getApiResources(groupVersion);
      return resources != null && resources.getResources().stream().anyMatch(r -> kind.equals(r.getKind()));
    } catch (io.fabric8.kubernetes.client.KubernetesClientException e) {
      if (e.getCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  /** The API server's version, e.g. {@code v1.32.13}. */
  String serverVersion() {
    return client.getKubernetesVersion().getGitVersion();
  }

  /** The cluster serves VolumeSnapshots (external-snapshotter's CRDs are installed). */
  boolean hasSnapshotApi() {
    return client.apiextensions().v1().customResourceDefinitions()
        .withName("volumesnapshots.snapshot.storage.k8s.io").get() != null;
  }

  /** Creates a VolumeSnapshot of {@code pvc} of the class {@link #SNAPSHOT_CLASS} in the case's namespace. */
  GenericKubernetesResource createVolumeSnapshot(String name, String pvc) {
    return client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(namespace).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot")
            .withNewMetadata().withName(name).endMetadata()
            .addToAdditionalProperties("spec", Map.of("volumeSnapshotClassName", SNAPSHOT_CLASS,
                "source", Map.of("persistentVolumeClaimName", pvc))).build()).create();
  }

  /** Waits until the kubelet on {@code node} has {@code driver} registered (its CSINode lists it). */
  void awaitDriverRegistered(String node, String driver) {
    Eventually.await(driver + " registered on " + node, Duration.ofMinutes(3), () -> {
      CSINode csiNode = client.storage().v1().csiNodes().withName(node).get();
      return csiNode != null && csiNode.getSpec().getDrivers().stream().anyMatch(d -> d.getName().equals(driver));
    });
  }

  static String zoneOf(Node node) {
    return node.getMetadata().getLabels().get("topology.kubernetes.io/zone");
  }

  static String token() {
    return "aws-csi-e2e-" + UUID.randomUUID();
  }

  /**
   * Deletes the namespace and the case's cluster-scoped objects, waits until they are gone, then checks that the
   * case left nothing behind (see {@link Teardown}).
   */
  @Override
  public void close() {
    try {
      teardown.recordVolumes();
      client.namespaces().withName(namespace).delete();
      Eventually.await("namespace " + namespace + " deleted", Duration.ofMinutes(5),
          () -> client.namespaces().withName(namespace).get() == null);
      for (HasMetadata o : clusterScoped.reversed()) {
        client.resource(o).delete();
      }
      teardown.verify();
    } finally {
      CURRENT.remove();
      client.close();
    }
  }
}
