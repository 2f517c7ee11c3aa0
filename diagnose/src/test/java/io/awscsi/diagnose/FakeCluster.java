package io.awscsi.diagnose;

import io.awscsi.aws.testing.KubernetesMockApi;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.api.model.storage.CSIDriverBuilder;
import io.fabric8.kubernetes.api.model.storage.CSINodeBuilder;
import io.fabric8.kubernetes.api.model.storage.StorageClassBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.UnaryOperator;

/**
 * A cluster as diagnose sees it, in fabric8's mock API server (CRUD mode, expectations for pods/log): the EBS driver
 * as the charts deploy it (a controller Deployment's pods with the plugin and the four sidecars, their Leases, the
 * node DaemonSet's pod, CSIDriver, CSINode, Node) and the objects of one workload, built step by step the way the
 * cluster makes them. The mock sets every creationTimestamp to the time of creation, so age is set by the clock the
 * diagnosis runs with ({@link #clockAfter}).
 */
final class FakeCluster implements AutoCloseable {

  static final String NS = "shop";
  static final String DRIVER_NS = "kube-system";
  static final String NODE = "ip-10-0-1-2.ec2.internal";
  static final String INSTANCE = "i-0a1b2c3d4e5f60718";
  static final String CONTROLLER = "ebs-csi-controller-5c9f7d8b6-x2x4q";
  static final String STANDBY = "ebs-csi-controller-5c9f7d8b6-k8p7n";
  static final String NODE_PLUGIN = "ebs-csi-node-7hq2m";
  static final String EFS_CONTROLLER = "efs-csi-controller-6d8f9c7b5-q9w2e";
  static final String GP3 = "gp3";

  final KubernetesMockApi api;
  final KubernetesClient client;

  private FakeCluster(KubernetesMockApi api) {
    this.api = api;
    this.client = api.client();
  }

  /** A cluster with the EBS driver running: two controller replicas (the first leads every sidecar), one node. */
  static FakeCluster withDriver() {
    FakeCluster c = new FakeCluster(KubernetesMockApi.start());
    c.client.storage().v1().csiDrivers().resource(new CSIDriverBuilder().withNewMetadata()
        .withName("ebs.csi.aws.com").endMetadata().withNewSpec().withAttachRequired(true).withPodInfoOnMount(false)
        .endSpec().build()).create();
    c.controllerPod(CONTROLLER);
    c.controllerPod(STANDBY);
    for (Knowledge.Actor sidecar : Driver.EBS.sidecars) {
      c.lease(sidecar.leaseName(Driver.EBS), CONTROLLER, Instant.now());
    }
    c.node(NODE);
    c.nodePlugin(NODE, true);
    c.csiNode(NODE, true);
    c.storageClass(GP3, Map.of("type", "gp3"), "WaitForFirstConsumer");
    c.snapshotClass("ebs-vsc");
    return c;
  }

  /** A VolumeSnapshotClass of the EBS driver (the class every {@link #snapshot} names). */
  void snapshotClass(String name) {
    client.genericKubernetesResources(ClusterReader.VOLUME_SNAPSHOT_CLASS).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1")
            .withKind("VolumeSnapshotClass").withNewMetadata().withName(name).endMetadata()
            .addToAdditionalProperties("driver", "ebs.csi.aws.com")
            .addToAdditionalProperties("deletionPolicy", "Delete").build()).create();
  }

  /** A claim as the PV controller leaves it when its StorageClass does not exist: no provisioner annotation. */
  PersistentVolumeClaim claimOfNoClass(String name, String storageClass) {
    return client.persistentVolumeClaims().inNamespace(NS).resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(name).withNamespace(NS).withUid(UUID.randomUUID().toString()).endMetadata()
        .withNewSpec().withStorageClassName(storageClass).withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity("1Gi")).endResources().endSpec().withNewStatus().withPhase("Pending")
        .endStatus().build()).create();
  }

  /** A VolumeSnapshot naming the class given. */
  GenericKubernetesResource snapshotOfClass(String name, String claim, String snapshotClass) {
    return client.genericKubernetesResources(ClusterReader.VOLUME_SNAPSHOT).inNamespace(NS).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot")
            .withNewMetadata().withName(name).withNamespace(NS).endMetadata()
            .addToAdditionalProperties("spec", Map.of("volumeSnapshotClassName", snapshotClass,
                "source", Map.of("persistentVolumeClaimName", claim)))
            .addToAdditionalProperties("status", Map.of("readyToUse", false)).build()).create();
  }

  /** The EFS driver beside it: its CSIDriver (no attach), a controller pod with the provisioner, its Lease. */
  void withEfs() {
    client.storage().v1().csiDrivers().resource(new CSIDriverBuilder().withNewMetadata()
        .withName("efs.csi.aws.com").endMetadata().withNewSpec().withAttachRequired(false).endSpec().build()).create();
    List<String> containers = List.of("efs-plugin", "csi-provisioner", "liveness-probe");
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(EFS_CONTROLLER).withNamespace(DRIVER_NS)
        .addToLabels("app", "efs-csi-controller").endMetadata().withNewSpec().withNodeName(NODE).endSpec();
    for (String container : containers) {
      pod.editSpec().addToContainers(new ContainerBuilder().withName(container).withImage("aws-csi-driver:0.1.0")
          .build()).endSpec();
    }
    client.pods().inNamespace(DRIVER_NS).resource(running(pod.build(), containers)).create();
    lease(Knowledge.Actor.PROVISIONER.leaseName(Driver.EFS), EFS_CONTROLLER, Instant.now());
    client.storage().v1().storageClasses().resource(new StorageClassBuilder().withNewMetadata().withName("efs-sc")
        .endMetadata().withProvisioner("efs.csi.aws.com").withParameters(Map.of("provisioningMode", "efs-ap",
            "fileSystemId", "fs-0123abcd", "directoryPerms", "700")).withVolumeBindingMode("Immediate")
        .withReclaimPolicy("Delete").build()).create();
  }

  static FakeCluster empty() {
    return new FakeCluster(KubernetesMockApi.start());
  }

  /**
   * The clock a diagnosis runs with, {@code age} after now: every object made so far is that old, and the Leases
   * still held were renewed just now, as their holders keep doing.
   */
  Clock later(Duration age) {
    Instant then = Instant.now().plus(age);
    for (var lease : client.leases().inNamespace(DRIVER_NS).list().getItems()) {
      lease(lease.getMetadata().getName(), lease.getSpec().getHolderIdentity(), then);
    }
    return Clock.fixed(then, ZoneOffset.UTC);
  }

  // ---------------------------------------------------------------- the driver

  void controllerPod(String name) {
    List<String> containers = List.of("ebs-plugin", "csi-provisioner", "csi-attacher", "csi-resizer",
        "csi-snapshotter", "liveness-probe");
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(DRIVER_NS)
        .addToLabels("app", "ebs-csi-controller").addToLabels("app.kubernetes.io/name", "aws-ebs-csi-driver")
        .endMetadata().withNewSpec().withNodeName(NODE).endSpec();
    for (String container : containers) {
      pod.editSpec().addToContainers(new ContainerBuilder().withName(container).withImage("aws-csi-driver:0.1.0")
          .withArgs(container.startsWith("csi-") ? List.of("--csi-address=$(ADDRESS)", "--leader-election=true")
              : List.of("--driver", "ebs", "--mode", "controller")).build()).endSpec();
    }
    client.pods().inNamespace(DRIVER_NS).resource(running(pod.build(), containers)).create();
  }

  void lease(String name, String holder, Instant renewed) {
    client.leases().inNamespace(DRIVER_NS).resource(new LeaseBuilder().withNewMetadata().withName(name)
        .withNamespace(DRIVER_NS).endMetadata().withNewSpec().withHolderIdentity(holder)
        .withLeaseDurationSeconds(15).withRenewTime(ZonedDateTime.ofInstant(renewed, ZoneOffset.UTC))
        .withAcquireTime(ZonedDateTime.ofInstant(renewed.minusSeconds(600), ZoneOffset.UTC)).endSpec().build())
        .createOr(op -> op.update());
  }

  void deleteLease(String name) {
    client.leases().inNamespace(DRIVER_NS).withName(name).delete();
  }

  void node(String name) {
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName(name)
        .addToLabels("topology.kubernetes.io/zone", "us-east-1a").endMetadata().withNewSpec()
        .withProviderID("aws:///us-east-1a/" + INSTANCE).endSpec().withNewStatus().addNewCondition()
        .withType("Ready").withStatus("True").endCondition().endStatus().build()).create();
  }

  /** The kubelet's view of what is mounted on the node: node.status.volumesInUse. */
  void volumesInUse(String node, String... volumeHandles) {
    client.nodes().withName(node).edit(n -> {
      n.getStatus().setVolumesInUse(List.of(volumeHandles).stream()
          .map(h -> "kubernetes.io/csi/ebs.csi.aws.com^" + h).toList());
      return n;
    });
  }

  void nodePlugin(String node, boolean ready) {
    Pod pod = new PodBuilder().withNewMetadata().withName(NODE_PLUGIN).withNamespace(DRIVER_NS)
        .addToLabels("app", "ebs-csi-node").endMetadata().withNewSpec().withNodeName(node)
        .addNewContainer().withName("ebs-plugin").withImage("aws-csi-driver:0.1.0").endContainer().endSpec().build();
    client.pods().inNamespace(DRIVER_NS).resource(ready ? running(pod, List.of("ebs-plugin")) : pod).create();
  }

  void deleteNodePlugin() {
    client.pods().inNamespace(DRIVER_NS).withName(NODE_PLUGIN).delete();
  }

  void csiNode(String node, boolean registered) {
    CSINodeBuilder csiNode = new CSINodeBuilder().withNewMetadata().withName(node).endMetadata().withNewSpec()
        .endSpec();
    if (registered) {
      csiNode.editSpec().addNewDriver().withName("ebs.csi.aws.com").withNodeID(INSTANCE)
          .withTopologyKeys("topology.ebs.csi.aws.com/zone").withNewAllocatable().withCount(25).endAllocatable()
          .endDriver().endSpec();
    }
    client.storage().v1().csiNodes().resource(csiNode.build()).createOr(op -> op.update());
  }

  /** The driver container's log, served as pods/log for {@code --since} of {@code since}. */
  void log(String namespace, String pod, String container, Duration since, String text) {
    String path = new DriverLogs(client, since).path(namespace, pod, container);
    api.server().expect().get().withPath(path).andReturn(200, text).always();
  }

  // ---------------------------------------------------------------- the workload

  void storageClass(String name, Map<String, String> parameters, String bindingMode) {
    client.storage().v1().storageClasses().resource(new StorageClassBuilder().withNewMetadata().withName(name)
        .endMetadata().withProvisioner("ebs.csi.aws.com").withParameters(parameters)
        .withVolumeBindingMode(bindingMode).withReclaimPolicy("Delete").withAllowVolumeExpansion(true).build())
        .create();
  }

  PersistentVolumeClaim pendingClaim(String name, String storageClass, String size) {
    return client.persistentVolumeClaims().inNamespace(NS).resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(name).withNamespace(NS).withUid(UUID.randomUUID().toString())
        .addToAnnotations("volume.kubernetes.io/storage-provisioner", "ebs.csi.aws.com").endMetadata()
        .withNewSpec().withStorageClassName(storageClass).withAccessModes("ReadWriteOnce").withNewResources()
        .addToRequests("storage", new Quantity(size)).endResources().endSpec().withNewStatus().withPhase("Pending")
        .endStatus().build()).create();
  }

  /** The scheduler's choice for a WaitForFirstConsumer claim. */
  void selectNode(String claim, String node) {
    editClaim(claim, pvc -> {
      pvc.getMetadata().getAnnotations().put("volume.kubernetes.io/selected-node", node);
      return pvc;
    });
  }

  /** What provisioning makes: the PV of {@code volumeId} and the claim bound to it. */
  PersistentVolume bind(String claim, String volumeId) {
    PersistentVolumeClaim pvc = claim(claim);
    String pvName = "pvc-" + pvc.getMetadata().getUid();
    Quantity size = pvc.getSpec().getResources().getRequests().get("storage");
    PersistentVolume pv = client.persistentVolumes().resource(new PersistentVolumeBuilder().withNewMetadata()
        .withName(pvName).addToFinalizers("external-provisioner.volume.kubernetes.io/finalizer").endMetadata()
        .withNewSpec().withCapacity(Map.of("storage", size)).withAccessModes("ReadWriteOnce")
        .withPersistentVolumeReclaimPolicy("Delete").withStorageClassName(pvc.getSpec().getStorageClassName())
        .withNewCsi().withDriver("ebs.csi.aws.com").withVolumeHandle(volumeId).withFsType("ext4").endCsi()
        .withNewClaimRef().withKind("PersistentVolumeClaim").withNamespace(NS).withName(claim)
        .withUid(pvc.getMetadata().getUid()).endClaimRef().endSpec().withNewStatus().withPhase("Bound").endStatus()
        .build()).create();
    editClaim(claim, c -> {
      c.getSpec().setVolumeName(pvName);
      c.getStatus().setPhase("Bound");
      c.getStatus().setCapacity(Map.of("storage", size));
      return c;
    });
    return pv;
  }

  PersistentVolumeClaim claim(String name) {
    return client.persistentVolumeClaims().inNamespace(NS).withName(name).get();
  }

  void editClaim(String name, UnaryOperator<PersistentVolumeClaim> change) {
    client.persistentVolumeClaims().inNamespace(NS).withName(name).edit(change);
  }

  /** A pod using the claim; scheduled to {@code node} if not null, Running and ready if {@code ready}. */
  Pod pod(String name, String claim, String node, boolean ready) {
    PodBuilder pod = new PodBuilder().withNewMetadata().withName(name).withNamespace(NS).endMetadata().withNewSpec()
        .addNewContainer().withName("app").withImage("busybox").endContainer()
        .addNewVolume().withName("data").withNewPersistentVolumeClaim().withClaimName(claim).endPersistentVolumeClaim()
        .endVolume().endSpec();
    if (node != null) {
      pod.editSpec().withNodeName(node).endSpec();
    }
    Pod built = pod.build();
    if (ready) {
      built = running(built, List.of("app"));
    } else {
      built.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Pending")
          .addToContainerStatuses(new ContainerStatusBuilder().withName("app").withReady(false).withNewState()
              .withNewWaiting().withReason("ContainerCreating").endWaiting().endState().build()).build());
    }
    return client.pods().inNamespace(NS).resource(built).create();
  }

  VolumeAttachment attachment(PersistentVolume pv, String node, boolean attached, String attachError) {
    VolumeAttachmentBuilder va = new VolumeAttachmentBuilder().withNewMetadata()
        .withName("csi-" + UUID.randomUUID().toString().replace("-", "")).endMetadata().withNewSpec()
        .withAttacher("ebs.csi.aws.com").withNodeName(node).withNewSource()
        .withPersistentVolumeName(pv.getMetadata().getName()).endSource().endSpec().withNewStatus()
        .withAttached(attached).endStatus();
    if (attached) {
      va.editStatus().addToAttachmentMetadata("devicePath", "/dev/xvdaa").endStatus();
    }
    if (attachError != null) {
      va.editStatus().withNewAttachError().withMessage(attachError)
          .withTime(ZonedDateTime.now(ZoneOffset.UTC).toString()).endAttachError().endStatus();
    }
    return client.storage().v1().volumeAttachments().resource(va.build()).create();
  }

  /** An event as the component records it: on the object, with its reason, from its source. */
  void event(HasMetadata on, String type, String reason, String message, String component) {
    String namespace = on.getMetadata().getNamespace() == null ? "default" : on.getMetadata().getNamespace();
    String now = ZonedDateTime.now(ZoneOffset.UTC).toString();
    client.v1().events().inNamespace(namespace).resource(new EventBuilder().withNewMetadata()
        .withName(on.getMetadata().getName() + "." + UUID.randomUUID().toString().substring(0, 8))
        .withNamespace(namespace).endMetadata().withType(type).withReason(reason).withMessage(message)
        .withNewInvolvedObject().withKind(on.getKind()).withApiVersion(on.getApiVersion())
        .withNamespace(on.getMetadata().getNamespace()).withName(on.getMetadata().getName())
        .withUid(on.getMetadata().getUid()).endInvolvedObject().withNewSource().withComponent(component)
        .endSource().withFirstTimestamp(now).withLastTimestamp(now).withCount(1).build()).create();
  }

  GenericKubernetesResource snapshot(String name, String claim, Map<String, Object> status) {
    return client.genericKubernetesResources(ClusterReader.VOLUME_SNAPSHOT).inNamespace(NS).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1").withKind("VolumeSnapshot")
            .withNewMetadata().withName(name).withNamespace(NS).endMetadata()
            .addToAdditionalProperties("spec", Map.of("volumeSnapshotClassName", "ebs-vsc",
                "source", Map.of("persistentVolumeClaimName", claim)))
            .addToAdditionalProperties("status", status).build()).create();
  }

  GenericKubernetesResource snapshotContent(String name, String snapshot, String volumeId,
      Map<String, Object> status) {
    return client.genericKubernetesResources(ClusterReader.VOLUME_SNAPSHOT_CONTENT).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("snapshot.storage.k8s.io/v1")
            .withKind("VolumeSnapshotContent").withNewMetadata().withName(name).endMetadata()
            .addToAdditionalProperties("spec", Map.of("driver", "ebs.csi.aws.com", "deletionPolicy", "Delete",
                "volumeSnapshotClassName", "ebs-vsc", "source", Map.of("volumeHandle", volumeId),
                "volumeSnapshotRef", Map.of("kind", "VolumeSnapshot", "namespace", NS, "name", snapshot)))
            .addToAdditionalProperties("status", status).build()).create();
  }

  GenericKubernetesResource groupSnapshot(String name, Map<String, Object> status) {
    return client.genericKubernetesResources(ClusterReader.VOLUME_GROUP_SNAPSHOT).inNamespace(NS).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("groupsnapshot.storage.k8s.io/v1")
            .withKind("VolumeGroupSnapshot").withNewMetadata().withName(name).withNamespace(NS).endMetadata()
            .addToAdditionalProperties("spec", Map.of("volumeGroupSnapshotClassName", "ebs-vgsc",
                "source", Map.of("selector", Map.of("matchLabels", Map.of("group", "db")))))
            .addToAdditionalProperties("status", status).build()).create();
  }

  GenericKubernetesResource groupSnapshotContent(String name, String group, Map<String, Object> status) {
    return client.genericKubernetesResources(ClusterReader.VOLUME_GROUP_SNAPSHOT_CONTENT).resource(
        new GenericKubernetesResourceBuilder().withApiVersion("groupsnapshot.storage.k8s.io/v1")
            .withKind("VolumeGroupSnapshotContent").withNewMetadata().withName(name).endMetadata()
            .addToAdditionalProperties("spec", Map.of("driver", "ebs.csi.aws.com", "deletionPolicy", "Delete",
                "volumeGroupSnapshotClassName", "ebs-vgsc",
                "volumeGroupSnapshotRef", Map.of("kind", "VolumeGroupSnapshot", "namespace", NS, "name", group)))
            .addToAdditionalProperties("status", status).build()).create();
  }

  /** The request paths the diagnosis sent, in order (for the RBAC check). */
  List<String> requests() throws InterruptedException {
    List<String> paths = new ArrayList<>();
    int n = api.server().getRequestCount();
    for (int i = 0; i < n; i++) {
      var r = api.server().takeRequest(1, java.util.concurrent.TimeUnit.SECONDS);
      if (r == null) {
        break;
      }
      paths.add(r.getMethod() + " " + r.getPath());
    }
    return paths;
  }

  private static Pod running(Pod pod, List<String> containers) {
    var status = new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Running")
        .addNewCondition().withType("Ready").withStatus("True").endCondition();
    for (String c : containers) {
      status.addToContainerStatuses(new ContainerStatusBuilder().withName(c).withReady(true).withNewState()
          .withNewRunning().withStartedAt(ZonedDateTime.now(ZoneOffset.UTC).toString()).endRunning().endState()
          .build());
    }
    pod.setStatus(status.build());
    return pod;
  }

  @Override
  public void close() {
    api.close();
  }
}
