package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.awscsi.diagnose.DiagnoseCommand;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Quantity;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code aws-csi-driver diagnose} against the real cluster, one fault per case (issue 18 item 5): CreateVolume refused
 * by EC2 with a quota error, a bad StorageClass parameter, an attach stuck in attaching, the node plugin not running
 * on the pod's node, mkfs failing, a resize refused, a snapshot failing; each asserts the stage, the component and
 * the message diagnose reports. A healthy claim reports healthy. The EC2 faults come from the realism layer
 * ({@link LocalCluster#injectFault}, {@link LocalCluster#holdAttaching}), so those cases need the local cluster
 * (e2e/kube-local); the others run on any cluster. The node plugin is taken off its node by the
 * {@link DriverDeployment} the suite runs.
 */
class DiagnoseTest extends ClusterCase {

  /** How long a fault may take to show (the attacher's retries, the kubelet's mount backoff, the resizer's). */
  private static final Duration SHOWS_WITHIN = Duration.ofMinutes(6);

  private static final String NEEDS_REALISM = "needs the realism layer in front of emulated EC2 (local cluster)";

  private final List<Runnable> undo = new ArrayList<>();

  /** Before the fixture closes: what the case broke, put back. */
  @AfterEach
  void undo() {
    for (Runnable u : undo.reversed()) {
      u.run();
    }
    if (cluster.local()) {
      cluster.localCluster().clearFaults();
    }
  }

  // ---------------------------------------------------------------- the cases

  @Test
  void aHealthyClaimIsHealthy() {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startSleeper("app", "data");

    Report pvc = diagnose("pvc", cluster.namespace + "/data");
    Report pod = diagnose("pod", cluster.namespace + "/app");

    pvc.assertThat(0, "healthy", null, null, null);
    pod.assertThat(0, "healthy", null, null, null);
    assertThat(pvc.first().path("summary").asText()).contains("Bound to pvc-", "app on " + cluster.nodeOf("app"));
  }

  @Test
  void createVolumeRefusedByEc2WithAQuotaErrorIsProvisioning() {
    assumeTrue(cluster.local(), NEEDS_REALISM);
    String sc = cluster.storageClass("quota", Map.of("type", "gp3"), "Immediate");
    // 7 GiB: no other claim of the suite asks for it, so only this CreateVolume is refused.
    cluster.localCluster().injectFault("ec2", "CreateVolume", Map.of("Size", "7"), "VolumeLimitExceeded",
        "You have exceeded your maximum gp3 storage limit of 100 TiB in this region (cluster-suite fault)");
    cluster.createPvc("big", sc, "7Gi", "ReadWriteOnce");

    Report r = diagnoseUntil("pvc", cluster.namespace + "/big", d -> "Provisioning".equals(stage(d)));

    r.assertThat(1, "failed", "Provisioning", "csi-provisioner", "ec2-quota");
    assertThat(r.first().path("reported").asText()).contains("VolumeLimitExceeded", "cluster-suite fault");
    assertThat(r.first().path("where").asText()).startsWith("csi-provisioner in ");
  }

  @Test
  void aBadStorageClassParameterIsProvisioningWithTheParameterNamed() {
    String sc = cluster.storageClass("bad-iops", Map.of("type", "gp3", "iops", "lots"), "Immediate");
    cluster.createPvc("bad", sc, "1Gi", "ReadWriteOnce");

    Report r = diagnoseUntil("pvc", cluster.namespace + "/bad", d -> "Provisioning".equals(stage(d)));

    r.assertThat(1, "failed", "Provisioning", "csi-provisioner", "bad-parameter");
    assertThat(r.first().path("reported").asText()).contains("InvalidArgument", "iops", "lots");
  }

  @Test
  void anAttachStuckInAttachingIsAttachingInTheAttacher() {
    assumeTrue(cluster.local(), NEEDS_REALISM);
    String sc = cluster.storageClass("attach", Map.of("type", "gp3"), "Immediate");
    String volumeId = provisioned("data", sc, "1Gi");
    cluster.localCluster().holdAttaching(volumeId);
    undo.add(() -> cluster.localCluster().releaseAttaching(volumeId));
    cluster.createPod("app", "data", "sleep 86400", firstNode());

    // The driver gives an attach that stays attaching 90 s, detaches it and answers UNAVAILABLE naming it.
    Report r = diagnoseUntil("pvc", cluster.namespace + "/data", d -> "attach-stuck".equals(known(d)));

    r.assertThat(1, "failed", "Attaching", "csi-attacher", "attach-stuck");
    assertThat(r.first().path("reported").asText()).contains(volumeId, "stuck in attaching");
    assertThat(r.first().path("where").asText()).startsWith("csi-attacher in ").contains("the Lease holder");
  }

  @Test
  void theNodePluginNotRunningOnThePodsNodeIsTheNodePlugins() {
    String sc = cluster.storageClass("plugin", Map.of("type", "gp3"), "Immediate");
    provisioned("data", sc, "1Gi");
    String node = firstNode();
    cluster.driver().stopNodePlugin(node);
    undo.add(() -> {
      cluster.driver().restoreNodePlugin(node);
      cluster.awaitDriverRegistered(node, "ebs.csi.aws.com");
    });
    cluster.createPod("app", "data", "sleep 86400", node);

    // Stopped cleanly, the plugin deregisters and the attach fails for want of its node id; killed, its
    // registration stays and the kubelet cannot reach it for the mount.
    Report r = diagnoseUntil("pvc", cluster.namespace + "/data", d -> "node-plugin".equals(d.path("component")
        .asText()) && d.path("verdict").asText().equals("failed"));

    JsonNode d = r.first();
    assertThat(r.code()).isEqualTo(1);
    assertThat(d.path("component").asText()).as(r.text()).isEqualTo("node-plugin");
    assertThat(stage(d)).as(r.text()).isIn("Attaching", "Staging");
    assertThat(known(d)).as(r.text()).isIn("driver-not-registered", "node-plugin-unreachable");
    assertThat(d.path("where").asText()).as(r.text()).startsWith("the node plugin on " + node);
    assertThat(d.path("reported").asText()).as(r.text()).containsAnyOf("does not contain driver ebs.csi.aws.com",
        "csi.sock", "not found in the list of registered CSI drivers");
  }

  @Test
  void mkfsFailingIsStagingOnThePodsNode() {
    // mkfs.ext4 refuses a block size under 1024 bytes; the controller accepts any positive one.
    String sc = cluster.storageClass("mkfs", Map.of("type", "gp3", "csi.storage.k8s.io/fstype", "ext4",
        "blockSize", "512"), "Immediate");
    provisioned("data", sc, "1Gi");
    String node = firstNode();
    cluster.createPod("app", "data", "sleep 86400", node);

    Report r = diagnoseUntil("pvc", cluster.namespace + "/data", d -> "Staging".equals(stage(d))
        && "failed".equals(d.path("verdict").asText()));

    r.assertThat(1, "failed", "Staging", "node-plugin", "mkfs");
    assertThat(r.first().path("reported").asText()).contains("mkfs.ext4", "block size");
    assertThat(r.first().path("where").asText()).startsWith("the node plugin on " + node);
  }

  @Test
  void aResizeRefusedByEc2IsExpandingInTheResizer() {
    assumeTrue(cluster.local(), NEEDS_REALISM);
    String sc = cluster.storageClass("resize", Map.of("type", "gp3"), "Immediate");
    String volumeId = provisioned("data", sc, "1Gi");
    cluster.startPod("app", "data", "sleep 86400", null);
    cluster.localCluster().injectFault("ec2", "ModifyVolume", Map.of("VolumeId", volumeId), "VolumeModificationRateExceeded",
        "You've reached the maximum modification rate per volume limit. Wait at least 6 hours between"
            + " modifications per EBS volume (cluster-suite fault)");
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data").edit(pvc -> {
      pvc.getSpec().getResources().getRequests().put("storage", new Quantity("2Gi"));
      return pvc;
    });

    Report r = diagnoseUntil("pvc", cluster.namespace + "/data",
        d -> "Expanding in the controller".equals(stage(d)) && "failed".equals(d.path("verdict").asText()));

    r.assertThat(1, "failed", "Expanding in the controller", "csi-resizer", "modify-rate");
    assertThat(r.first().path("reported").asText()).contains("VolumeModificationRateExceeded");
    assertThat(r.first().path("summary").asText()).contains("1Gi -> 2Gi");
  }

  @Test
  void aSnapshotRefusedByEc2IsSnapshottingInTheSnapshotter() {
    assumeTrue(cluster.local(), NEEDS_REALISM);
    assumeTrue(cluster.hasSnapshotApi(), "the cluster has no snapshot CRDs");
    String volumeId = provisioned("data", cluster.storageClass("snap", Map.of("type", "gp3"), "Immediate"), "1Gi");
    cluster.localCluster().injectFault("ec2", "CreateSnapshot", Map.of("VolumeId", volumeId), "SnapshotLimitExceeded",
        "The maximum number of snapshots has been reached (cluster-suite fault)");
    cluster.createVolumeSnapshot("nightly", "data");

    Report r = diagnoseUntil("volumesnapshot", cluster.namespace + "/nightly",
        d -> "failed".equals(d.path("verdict").asText()));

    r.assertThat(1, "failed", "Snapshotting", "csi-snapshotter", "snapshot-quota");
    assertThat(r.first().path("reported").asText()).contains("SnapshotLimitExceeded");
  }

  // ------------------------------------------------ what no driver call caused (issue 29 item 5): the component's
  // own failure is named, not a driver call

  @Test
  void aClaimNamingAStorageClassThatDoesNotExistIsThePvControllers() {
    String missing = cluster.namespace + "-no-such-class";
    cluster.createPvc("orphan", missing, "1Gi", "ReadWriteOnce");

    Report r = diagnoseUntil("pvc", cluster.namespace + "/orphan", d -> "failed".equals(d.path("verdict").asText()));

    r.assertThat(1, "failed", "Provisioning", "kube-controller-manager", "storage-class-missing");
    assertThat(r.first().path("summary").asText()).contains("StorageClass " + missing + " does not exist");
  }

  @Test
  void aSnapshotNamingAMissingSnapshotClassIsSnapshotControllersWithNoCreateSnapshot() {
    assumeTrue(cluster.hasSnapshotApi(), "the cluster has no snapshot CRDs");
    provisioned("data", cluster.storageClass("snapcls", Map.of("type", "gp3"), "Immediate"), "1Gi");
    String missing = cluster.namespace + "-no-such-vsc";
    cluster.client.genericKubernetesResources(Teardown.VOLUME_SNAPSHOT).inNamespace(cluster.namespace).resource(
        new io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder()
            .withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot").withNewMetadata()
            .withName("nightly").endMetadata().addToAdditionalProperties("spec", Map.of("volumeSnapshotClassName",
                missing, "source", Map.of("persistentVolumeClaimName", "data"))).build()).create();

    Report r = diagnoseUntil("volumesnapshot", cluster.namespace + "/nightly",
        d -> "failed".equals(d.path("verdict").asText()));

    r.assertThat(1, "failed", "Snapshotting", "snapshot-controller", "snapshot-class-missing");
    assertThat(r.first().path("meaning").asText()).contains("no CreateSnapshot reaches the driver");
  }

  @Test
  void aClaimNamingAMissingVolumeAttributesClassSendsNoModify() {
    cluster.createPvc("data", ClusterFixture.GP3, "1Gi", "ReadWriteOnce");
    cluster.startSleeper("app", "data");
    cluster.awaitBound("data");
    String missing = cluster.namespace + "-no-such-vac";
    cluster.client.persistentVolumeClaims().inNamespace(cluster.namespace).withName("data").patch(
        io.fabric8.kubernetes.client.dsl.base.PatchContext.of(io.fabric8.kubernetes.client.dsl.base.PatchType
            .JSON_MERGE), "{\"spec\":{\"volumeAttributesClassName\":\"" + missing + "\"}}");

    Report r = diagnoseUntil("pvc", cluster.namespace + "/data", d -> "Modifying".equals(stage(d)));

    r.assertThat(1, "failed", "Modifying", "csi-resizer", "vac-missing");
    assertThat(r.first().path("summary").asText()).contains("no ControllerModifyVolume was sent");
  }

  // ---------------------------------------------------------------- running diagnose

  /** One run of the command, as JSON, with its text report for failure messages. */
  record Report(int code, JsonNode json, String text) {

    JsonNode first() {
      return json.path("diagnoses").get(0);
    }

    void assertThat(int exitCode, String verdict, String stage, String component, String knownError) {
      JsonNode d = first();
      org.assertj.core.api.Assertions.assertThat(code).as("exit code\n%s", text).isEqualTo(exitCode);
      org.assertj.core.api.Assertions.assertThat(d.path("verdict").asText()).as("verdict\n%s", text)
          .isEqualTo(verdict);
      if (stage != null) {
        org.assertj.core.api.Assertions.assertThat(stage(d)).as("stage\n%s", text).isEqualTo(stage);
        org.assertj.core.api.Assertions.assertThat(d.path("component").asText()).as("component\n%s", text)
            .isEqualTo(component);
        org.assertj.core.api.Assertions.assertThat(known(d)).as("known error\n%s", text).isEqualTo(knownError);
      }
    }
  }

  private Report diagnose(String kind, String ref) {
    List<String> base = new ArrayList<>(List.of(kind, ref));
    if (cluster.local()) {
      base.addAll(List.of("--kubeconfig", cluster.localCluster().kubeconfig().toString()));
    }
    List<String> json = new ArrayList<>(base);
    json.addAll(List.of("-o", "json"));
    Run asJson = run(json);
    Run asText = run(base);
    try {
      return new Report(asJson.code(), new ObjectMapper().readTree(asJson.out()), asText.out() + asText.err());
    } catch (IOException e) {
      throw new UncheckedIOException("diagnose printed no JSON: " + asJson.out() + asJson.err(), e);
    }
  }

  private record Run(int code, String out, String err) {}

  private static Run run(List<String> args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = DiagnoseCommand.run(args.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** Runs diagnose until its first diagnosis matches (the fault has shown), bounded; then returns that run. */
  private Report diagnoseUntil(String kind, String ref, Predicate<JsonNode> shown) {
    Instant deadline = Instant.now().plus(SHOWS_WITHIN);
    Report last = null;
    while (Instant.now().isBefore(deadline)) {
      last = diagnose(kind, ref);
      if (shown.test(last.first())) {
        System.out.println("[diagnose " + kind + " " + ref + "]\n" + last.text());
        return last;
      }
      Eventually.sleep(Duration.ofSeconds(2));
    }
    throw new AssertionError("diagnose " + kind + " " + ref + " did not report the fault within " + SHOWS_WITHIN
        + "; last report:\n" + (last == null ? "(none)" : last.text()) + "\nevents of " + cluster.namespace + ":\n"
        + String.join("\n", events()));
  }

  private static String stage(JsonNode d) {
    return d.path("stage").isNull() ? null : d.path("stage").asText();
  }

  private static String known(JsonNode d) {
    return d.path("knownError").asText();
  }

  // ---------------------------------------------------------------- objects

  /** A claim of an Immediate class, waited for until bound: its volume id. */
  private String provisioned(String claim, String storageClass, String size) {
    cluster.createPvc(claim, storageClass, size, "ReadWriteOnce");
    return cluster.awaitBound(claim).getSpec().getCsi().getVolumeHandle();
  }

  private String firstNode() {
    return cluster.schedulableNodes().getFirst().getMetadata().getName();
  }

  private List<String> events() {
    return cluster.events().stream().map(DiagnoseTest::line).toList();
  }

  private static String line(Event e) {
    return e.getInvolvedObject().getKind() + "/" + e.getInvolvedObject().getName() + " " + e.getType() + " "
        + e.getReason() + ": " + e.getMessage();
  }
}
