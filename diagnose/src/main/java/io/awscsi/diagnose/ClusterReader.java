package io.awscsi.diagnose;

import io.awscsi.diagnose.Views.ClassMissing;
import io.awscsi.diagnose.Views.DriverState;
import io.awscsi.diagnose.Views.Events;
import io.awscsi.diagnose.Views.SnapshotView;
import io.awscsi.diagnose.Views.VolumeView;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Reads, through the Kubernetes API, everything a diagnosis looks at, read-only: the claim, its StorageClass, PV,
 * VolumeAttachments, the pods using it and every object's events; the driver's CSIDriver, controller pods, the
 * sidecars' Leases, and for each node concerned its node plugin pod, CSINode and Node; VolumeSnapshots and their
 * contents as generic resources (no CRD classes needed). A read the caller may not do (RBAC) or that fails is
 * recorded as a gap and the rest is still read; only the target itself must be readable.
 */
final class ClusterReader {

  static final ResourceDefinitionContext VOLUME_SNAPSHOT = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshot")
      .withPlural("volumesnapshots").withNamespaced(true).build();
  static final ResourceDefinitionContext VOLUME_SNAPSHOT_CLASS = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshotClass")
      .withPlural("volumesnapshotclasses").withNamespaced(false).build();
  static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshot")
      .withPlural("volumegroupsnapshots").withNamespaced(true).build();
  static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT_CLASS = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshotClass")
      .withPlural("volumegroupsnapshotclasses").withNamespaced(false).build();
  static final ResourceDefinitionContext VOLUME_GROUP_SNAPSHOT_CONTENT = new ResourceDefinitionContext.Builder()
      .withGroup("groupsnapshot.storage.k8s.io").withVersion("v1").withKind("VolumeGroupSnapshotContent")
      .withPlural("volumegroupsnapshotcontents").withNamespaced(false).build();
  static final ResourceDefinitionContext VOLUME_SNAPSHOT_CONTENT = new ResourceDefinitionContext.Builder()
      .withGroup("snapshot.storage.k8s.io").withVersion("v1").withKind("VolumeSnapshotContent")
      .withPlural("volumesnapshotcontents").withNamespaced(false).build();
  /** Where the charts install the driver; searched for Leases besides the controller pods' own namespaces. */
  static final String DEFAULT_DRIVER_NAMESPACE = "kube-system";

  /** What was read for a target. */
  sealed interface Read {
    /**
     * @param volumes the claims (or PV) of these drivers
     * @param classMissing claims that name a StorageClass that does not exist: no provisioner, so no driver, was ever
     *     asked, and the PV controller's event is the whole answer
     */
    record Volumes(List<VolumeView> volumes, List<ClassMissing> classMissing) implements Read {}

    record Snapshot(SnapshotView snapshot) implements Read {}

    record GroupSnapshot(Views.GroupSnapshotView group) implements Read {}

    /** Nothing to diagnose: the target is missing, unreadable, or not a volume of these drivers. */
    record Unreadable(String reason) implements Read {}
  }

  private final KubernetesClient client;
  private final Clock clock;

  ClusterReader(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  Read read(Target target) {
    return switch (target) {
      case Target.Pvc t -> {
        PersistentVolumeClaim pvc = client.persistentVolumeClaims().inNamespace(t.namespace()).withName(t.name())
            .get();
        yield pvc == null ? new Read.Unreadable("PVC " + t.namespace() + "/" + t.name() + " not found")
            : volumes(List.of(pvc), null);
      }
      case Target.Pod t -> {
        Pod pod = client.pods().inNamespace(t.namespace()).withName(t.name()).get();
        if (pod == null) {
          yield new Read.Unreadable("pod " + t.namespace() + "/" + t.name() + " not found");
        }
        List<PersistentVolumeClaim> claims = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        for (String claim : claimNames(pod)) {
          PersistentVolumeClaim pvc = client.persistentVolumeClaims().inNamespace(t.namespace()).withName(claim)
              .get();
          if (pvc == null) {
            missing.add(claim);
          } else {
            claims.add(pvc);
          }
        }
        if (claims.isEmpty()) {
          yield new Read.Unreadable(missing.isEmpty() ? "pod " + t.namespace() + "/" + t.name()
              + " uses no PersistentVolumeClaim" : "pod " + t.namespace() + "/" + t.name()
              + " uses the PVCs " + missing + ", which do not exist");
        }
        yield volumes(claims, pod);
      }
      case Target.Pv t -> {
        PersistentVolume pv = client.persistentVolumes().withName(t.name()).get();
        if (pv == null) {
          yield new Read.Unreadable("PV " + t.name() + " not found");
        }
        var ref = pv.getSpec().getClaimRef();
        PersistentVolumeClaim pvc = ref == null ? null
            : client.persistentVolumeClaims().inNamespace(ref.getNamespace()).withName(ref.getName()).get();
        if (pvc != null && ref.getUid() != null && !ref.getUid().equals(pvc.getMetadata().getUid())) {
          pvc = null; // a new claim of the same name, not this PV's
        }
        if (pvc != null) {
          yield volumes(List.of(pvc), null);
        }
        yield volumeOfPv(pv);
      }
      case Target.VolumeSnapshot t -> snapshot(t);
      case Target.VolumeGroupSnapshot t -> groupSnapshot(t);
    };
  }

  private Read volumes(List<PersistentVolumeClaim> claims, Pod focus) {
    List<VolumeView> views = new ArrayList<>();
    List<String> others = new ArrayList<>();
    List<ClassMissing> classMissing = new ArrayList<>();
    for (PersistentVolumeClaim pvc : claims) {
      Gaps gaps = new Gaps();
      String className = Objects.requireNonNullElse(pvc.getSpec().getStorageClassName(), "");
      StorageClass sc = className.isEmpty() ? null : gaps.get("storageclass " + className,
          () -> client.storage().v1().storageClasses().withName(className).get());
      String volumeName = pvc.getSpec().getVolumeName();
      PersistentVolume pv = volumeName == null || volumeName.isEmpty() ? null
          : gaps.get("persistentvolume " + volumeName, () -> client.persistentVolumes().withName(volumeName).get());
      Optional<Driver> driver = driverOf(pvc, sc, pv);
      if (driver.isEmpty() && sc == null && pv == null && !className.isEmpty() && gaps.list.isEmpty()) {
        // Without its class nobody knows the claim's driver; what stops it is the PV controller, not a driver.
        classMissing.add(new ClassMissing(clock.instant(), pvc, className, events(List.of(pvc), gaps), gaps.list));
        continue;
      }
      if (driver.isEmpty()) {
        others.add("PVC " + pvc.getMetadata().getNamespace() + "/" + pvc.getMetadata().getName() + " ("
            + csiNameOf(pvc, sc, pv).map(n -> "provisioner " + n).orElse("no provisioner known") + ")");
        continue;
      }
      views.add(view(pvc, sc, pv, focus, driver.get(), gaps));
    }
    if (views.isEmpty() && classMissing.isEmpty()) {
      return new Read.Unreadable(String.join("; ", others) + ": not a volume of "
          + Driver.EBS.csiName + " or " + Driver.EFS.csiName);
    }
    return new Read.Volumes(views, classMissing);
  }

  private Read volumeOfPv(PersistentVolume pv) {
    Optional<Driver> driver = driverOf(null, null, pv);
    if (driver.isEmpty()) {
      return new Read.Unreadable("PV " + pv.getMetadata().getName() + " is not a volume of " + Driver.EBS.csiName
          + " or " + Driver.EFS.csiName);
    }
    return new Read.Volumes(List.of(view(null, null, pv, null, driver.get(), new Gaps())), List.of());
  }

  private VolumeView view(PersistentVolumeClaim pvc, StorageClass sc, PersistentVolume pv, Pod focus, Driver driver,
      Gaps gaps) {
    String pvName = pv != null ? pv.getMetadata().getName() : null;
    List<VolumeAttachment> attachments = pvName == null ? List.of()
        : gaps.list("volumeattachments", () -> client.storage().v1().volumeAttachments().list().getItems()).stream()
            .filter(va -> va.getSpec().getSource() != null
                && pvName.equals(va.getSpec().getSource().getPersistentVolumeName()))
            .toList();
    List<Pod> consumers = new ArrayList<>();
    if (focus != null) {
      consumers.add(focus);
    }
    if (pvc != null) {
      String ns = pvc.getMetadata().getNamespace();
      String claim = pvc.getMetadata().getName();
      gaps.list("pods in " + ns, () -> client.pods().inNamespace(ns).list().getItems()).stream()
          .filter(p -> claimNames(p).contains(claim))
          .filter(p -> focus == null || !p.getMetadata().getName().equals(focus.getMetadata().getName()))
          .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
          .forEach(consumers::add);
    }
    GenericKubernetesResource restoreSource = null;
    if (pvc != null) {
      Optional<Views.DataSource> source = Views.dataSource(pvc).filter(d -> "VolumeSnapshot".equals(d.kind()));
      if (source.isPresent()) {
        String snapshot = source.get().name();
        restoreSource = gaps.get("volumesnapshot " + snapshot, () -> client.genericKubernetesResources(
            VOLUME_SNAPSHOT).inNamespace(pvc.getMetadata().getNamespace()).withName(snapshot).get());
      }
    }
    Set<String> nodes = new LinkedHashSet<>();
    consumers.stream().map(p -> p.getSpec().getNodeName()).filter(Objects::nonNull).forEach(nodes::add);
    attachments.stream().map(va -> va.getSpec().getNodeName()).filter(Objects::nonNull).forEach(nodes::add);
    if (pvc != null && pvc.getMetadata().getAnnotations() != null) {
      String selected = pvc.getMetadata().getAnnotations().get("volume.kubernetes.io/selected-node");
      if (selected != null) {
        nodes.add(selected);
      }
    }
    DriverState state = driverState(driver, nodes, gaps);
    List<HasMetadata> withEvents = new ArrayList<>();
    if (pvc != null) {
      withEvents.add(pvc);
    }
    if (pv != null) {
      withEvents.add(pv);
    }
    withEvents.addAll(consumers);
    if (restoreSource != null) {
      withEvents.add(restoreSource);
    }
    Events events = events(withEvents, gaps);
    return new VolumeView(clock.instant(), pvc, sc, pv, restoreSource, attachments, List.copyOf(consumers), focus,
        events, state, gaps.list);
  }

  private Read snapshot(Target.VolumeSnapshot t) {
    GenericKubernetesResource snapshot;
    try {
      snapshot = client.genericKubernetesResources(VOLUME_SNAPSHOT).inNamespace(t.namespace()).withName(t.name())
          .get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return new Read.Unreadable("the cluster does not serve snapshot.storage.k8s.io/v1 (no external-snapshotter"
            + " CRDs)");
      }
      throw e;
    }
    if (snapshot == null) {
      return new Read.Unreadable("VolumeSnapshot " + t.namespace() + "/" + t.name() + " not found");
    }
    Gaps gaps = new Gaps();
    String contentName = Fields.string(snapshot, "status", "boundVolumeSnapshotContentName");
    if (contentName.isEmpty()) {
      contentName = Fields.string(snapshot, "spec", "source", "volumeSnapshotContentName");
    }
    String content = contentName;
    GenericKubernetesResource vsc = content.isEmpty() ? null : gaps.get("volumesnapshotcontent " + content,
        () -> client.genericKubernetesResources(VOLUME_SNAPSHOT_CONTENT).withName(content).get());
    String claim = Fields.string(snapshot, "spec", "source", "persistentVolumeClaimName");
    PersistentVolumeClaim source = claim.isEmpty() ? null : gaps.get("persistentvolumeclaim " + claim,
        () -> client.persistentVolumeClaims().inNamespace(t.namespace()).withName(claim).get());
    String pvName = source == null ? "" : Objects.requireNonNullElse(source.getSpec().getVolumeName(), "");
    PersistentVolume pv = pvName.isEmpty() ? null
        : gaps.get("persistentvolume " + pvName, () -> client.persistentVolumes().withName(pvName).get());
    String driverName = vsc != null ? Fields.string(vsc, "spec", "driver")
        : pv != null && pv.getSpec().getCsi() != null ? pv.getSpec().getCsi().getDriver() : "";
    Optional<Driver> driver = Driver.byCsiName(driverName);
    if (driver.isEmpty() && source != null) {
      StorageClass sc = source.getSpec().getStorageClassName() == null ? null
          : gaps.get("storageclass", () -> client.storage().v1().storageClasses()
              .withName(source.getSpec().getStorageClassName()).get());
      driver = driverOf(source, sc, pv);
    }
    if (driver.isEmpty() && !driverName.isEmpty()) {
      return new Read.Unreadable("VolumeSnapshot " + t.namespace() + "/" + t.name() + " is of driver " + driverName
          + ", not " + Driver.EBS.csiName);
    }
    String className = Fields.string(snapshot, "spec", "volumeSnapshotClassName");
    boolean classMissing = !className.isEmpty() && vsc == null && gaps.get("volumesnapshotclass " + className,
        () -> client.genericKubernetesResources(VOLUME_SNAPSHOT_CLASS).withName(className).get()) == null
        && gaps.list.stream().noneMatch(g -> g.contains("volumesnapshotclass"));
    DriverState state = driverState(driver.orElse(Driver.EBS), Set.of(), gaps);
    List<HasMetadata> withEvents = new ArrayList<>(List.of(snapshot));
    if (vsc != null) {
      withEvents.add(vsc);
    }
    return new Read.Snapshot(new SnapshotView(clock.instant(), snapshot, vsc, source, pv, events(withEvents, gaps),
        state, gaps.list, classMissing));
  }

  /** A VolumeGroupSnapshot, its content and (when no content was made) whether its class exists. EBS only. */
  private Read groupSnapshot(Target.VolumeGroupSnapshot t) {
    GenericKubernetesResource group;
    try {
      group = client.genericKubernetesResources(VOLUME_GROUP_SNAPSHOT).inNamespace(t.namespace()).withName(t.name())
          .get();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 404) {
        return new Read.Unreadable("the cluster does not serve groupsnapshot.storage.k8s.io/v1 (no group snapshot"
            + " CRDs of external-snapshotter)");
      }
      throw e;
    }
    if (group == null) {
      return new Read.Unreadable("VolumeGroupSnapshot " + t.namespace() + "/" + t.name() + " not found");
    }
    Gaps gaps = new Gaps();
    String contentName = Fields.string(group, "status", "boundVolumeGroupSnapshotContentName");
    if (contentName.isEmpty()) {
      contentName = Fields.string(group, "spec", "source", "volumeGroupSnapshotContentName");
    }
    String name = contentName;
    GenericKubernetesResource content = name.isEmpty() ? null : gaps.get("volumegroupsnapshotcontent " + name,
        () -> client.genericKubernetesResources(VOLUME_GROUP_SNAPSHOT_CONTENT).withName(name).get());
    String driverName = content == null ? "" : Fields.string(content, "spec", "driver");
    if (!driverName.isEmpty() && Driver.byCsiName(driverName).filter(d -> d == Driver.EBS).isEmpty()) {
      return new Read.Unreadable("VolumeGroupSnapshot " + t.namespace() + "/" + t.name() + " is of driver "
          + driverName + ", not " + Driver.EBS.csiName + " (the only one here with group snapshots)");
    }
    String className = Fields.string(group, "spec", "volumeGroupSnapshotClassName");
    boolean classMissing = !className.isEmpty() && content == null
        && gaps.get("volumegroupsnapshotclass " + className,
            () -> client.genericKubernetesResources(VOLUME_GROUP_SNAPSHOT_CLASS).withName(className).get()) == null
        && gaps.list.stream().noneMatch(g -> g.contains("volumegroupsnapshotclass"));
    DriverState state = driverState(Driver.EBS, Set.of(), gaps);
    List<HasMetadata> withEvents = new ArrayList<>(List.of(group));
    if (content != null) {
      withEvents.add(content);
    }
    return new Read.GroupSnapshot(new Views.GroupSnapshotView(clock.instant(), group, content,
        events(withEvents, gaps), state, gaps.list, classMissing));
  }

  private DriverState driverState(Driver driver, Set<String> nodes, Gaps gaps) {
    CSIDriver csiDriver = gaps.get("csidriver " + driver.csiName,
        () -> client.storage().v1().csiDrivers().withName(driver.csiName).get());
    List<Pod> controllers = gaps.list("pods labelled app=" + driver.controllerApp(),
        () -> client.pods().inAnyNamespace().withLabel("app", driver.controllerApp()).list().getItems());
    Map<Knowledge.Actor, Lease> leases = new LinkedHashMap<>();
    Set<String> namespaces = leaseNamespaces(controllers);
    for (Knowledge.Actor sidecar : driver.sidecars) {
      for (String ns : namespaces) {
        Lease lease = gaps.get("lease " + ns + "/" + sidecar.leaseName(driver),
            () -> client.leases().inNamespace(ns).withName(sidecar.leaseName(driver)).get());
        if (lease != null) {
          leases.put(sidecar, lease);
          break;
        }
      }
    }
    Map<String, Pod> nodePlugins = new LinkedHashMap<>();
    Map<String, CSINode> csiNodes = new LinkedHashMap<>();
    Map<String, Node> nodeObjects = new LinkedHashMap<>();
    // One list of the DaemonSet's pods, filtered here: a field selector on spec.nodeName per node would be lighter on a
    // large cluster, but not every API server stand-in filters by it.
    List<Pod> plugins = nodes.isEmpty() ? List.of() : gaps.list("pods labelled app=" + driver.nodeApp(),
        () -> client.pods().inAnyNamespace().withLabel("app", driver.nodeApp()).list().getItems());
    for (String node : nodes) {
      plugins.stream()
          .filter(p -> node.equals(p.getSpec().getNodeName()))
          .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
          .findFirst().ifPresent(p -> nodePlugins.put(node, p));
      CSINode csiNode = gaps.get("csinode " + node, () -> client.storage().v1().csiNodes().withName(node).get());
      if (csiNode != null) {
        csiNodes.put(node, csiNode);
      }
      Node n = gaps.get("node " + node, () -> client.nodes().withName(node).get());
      if (n != null) {
        nodeObjects.put(node, n);
      }
    }
    return new DriverState(driver, csiDriver, controllers, leases, nodePlugins, csiNodes, nodeObjects);
  }

  /** The controller pods' namespaces, those their sidecars elect in (--leader-election-namespace), kube-system. */
  private static Set<String> leaseNamespaces(List<Pod> controllers) {
    Set<String> namespaces = new LinkedHashSet<>();
    for (Pod p : controllers) {
      for (Container c : p.getSpec().getContainers()) {
        for (String arg : Objects.requireNonNullElse(c.getArgs(), List.<String>of())) {
          if (arg.startsWith("--leader-election-namespace=")) {
            namespaces.add(arg.substring(arg.indexOf('=') + 1));
          }
        }
      }
      namespaces.add(p.getMetadata().getNamespace());
    }
    namespaces.add(DEFAULT_DRIVER_NAMESPACE);
    return namespaces;
  }

  private Events events(List<HasMetadata> objects, Gaps gaps) {
    Map<String, List<Event>> byObject = new LinkedHashMap<>();
    Map<String, List<Event>> eventsIn = new LinkedHashMap<>();
    for (HasMetadata o : objects) {
      String ns = o.getMetadata().getNamespace();
      String name = o.getMetadata().getName();
      // Events of cluster-scoped objects (PV, VolumeSnapshotContent) are recorded in the namespace "default". One list
      // per namespace, filtered here (events live an hour; not every API server stand-in filters by involvedObject).
      String eventNamespace = ns == null || ns.isEmpty() ? "default" : ns;
      List<Event> events = eventsIn.computeIfAbsent(eventNamespace, n -> gaps.list("events in " + n,
          () -> client.v1().events().inNamespace(n).list().getItems()));
      byObject.put(Events.key(o.getKind(), ns, name), events.stream()
          .filter(e -> e.getInvolvedObject() != null && name.equals(e.getInvolvedObject().getName())
              && o.getKind().equals(e.getInvolvedObject().getKind()))
          .sorted(Comparator.comparing(Views::time)).toList());
    }
    return new Events(byObject);
  }

  /** The claims a pod mounts: persistentVolumeClaim volumes, and generic ephemeral volumes (POD-VOLUME). */
  static List<String> claimNames(Pod pod) {
    List<String> names = new ArrayList<>();
    for (Volume v : Objects.requireNonNullElse(pod.getSpec().getVolumes(), List.<Volume>of())) {
      if (v.getPersistentVolumeClaim() != null) {
        names.add(v.getPersistentVolumeClaim().getClaimName());
      } else if (v.getEphemeral() != null) {
        names.add(pod.getMetadata().getName() + "-" + v.getName());
      }
    }
    return names;
  }

  static Optional<Driver> driverOf(PersistentVolumeClaim pvc, StorageClass sc, PersistentVolume pv) {
    return csiNameOf(pvc, sc, pv).flatMap(Driver::byCsiName);
  }

  /** The CSI driver of a volume: the PV's, else the StorageClass's provisioner, else the claim's annotation. */
  static Optional<String> csiNameOf(PersistentVolumeClaim pvc, StorageClass sc, PersistentVolume pv) {
    if (pv != null && pv.getSpec().getCsi() != null) {
      return Optional.of(pv.getSpec().getCsi().getDriver());
    }
    if (sc != null) {
      return Optional.of(sc.getProvisioner());
    }
    if (pvc != null && pvc.getMetadata().getAnnotations() != null) {
      for (String key : List.of("volume.kubernetes.io/storage-provisioner",
          "volume.beta.kubernetes.io/storage-provisioner")) {
        String value = pvc.getMetadata().getAnnotations().get(key);
        if (value != null) {
          return Optional.of(value);
        }
      }
    }
    return Optional.empty();
  }

  /** Reads that may fail without ending the diagnosis; each failure becomes a line of the report. */
  private static final class Gaps {
    final List<String> list = new ArrayList<>();

    <T> T get(String what, Supplier<T> read) {
      try {
        return read.get();
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return null;
        }
        list.add("cannot read " + what + ": " + reason(e));
        return null;
      }
    }

    <T> List<T> list(String what, Supplier<List<T>> read) {
      List<T> items = get(what, read);
      return items == null ? List.of() : items;
    }
  }

  static String reason(KubernetesClientException e) {
    if (e.getCode() == 403) {
      return "forbidden (the user lacks read access: bind the chart's diagnose ClusterRole, see"
          + " diagnose.clusterRole in the chart's values)";
    }
    String message = e.getStatus() != null && e.getStatus().getMessage() != null ? e.getStatus().getMessage()
        : e.getMessage();
    return (e.getCode() > 0 ? "HTTP " + e.getCode() + ": " : "") + message;
  }
}
