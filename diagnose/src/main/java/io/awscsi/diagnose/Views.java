package io.awscsi.diagnose;

import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.CSIDriver;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** What {@link ClusterReader} found, as {@link StageInference} reads it: plain objects, nothing fetched later. */
final class Views {

  private Views() {}

  /**
   * The driver as it runs in the cluster: its CSIDriver object, controller pods, the sidecars' Leases, and per node
   * concerned the node plugin pod, the CSINode and the Node.
   */
  record DriverState(Driver driver, CSIDriver csiDriver, List<Pod> controllerPods,
                     Map<Knowledge.Actor, Lease> leases, Map<String, Pod> nodePlugins, Map<String, CSINode> csiNodes,
                     Map<String, Node> nodes) {

    Optional<Lease> lease(Knowledge.Actor actor) {
      return Optional.ofNullable(leases.get(actor));
    }

    /** The controller pod named as the Lease's holder (the sidecars' identity is the pod's host name). */
    Optional<Pod> leaseHolder(Knowledge.Actor actor) {
      return lease(actor).map(l -> l.getSpec() == null ? null : l.getSpec().getHolderIdentity())
          .flatMap(holder -> controllerPods.stream().filter(p -> p.getMetadata().getName().equals(holder))
              .findFirst());
    }

    Optional<String> leaseHolderName(Knowledge.Actor actor) {
      return lease(actor).map(l -> l.getSpec() == null ? null : l.getSpec().getHolderIdentity())
          .filter(h -> !h.isEmpty());
    }

    /** Why a sidecar cannot be doing its work: no Lease, no holder, an expired Lease; empty when one leads. */
    String sidecarMissing(Knowledge.Actor sidecar, Instant now) {
      if (!driver.sidecars.contains(sidecar)) {
        return "";
      }
      Optional<Lease> lease = lease(sidecar);
      if (lease.isEmpty() || lease.get().getSpec() == null || Views.empty(lease.get().getSpec().getHolderIdentity())
          .isEmpty()) {
        return "no " + sidecar.component + " leads: the Lease " + sidecar.leaseName(driver) + " is "
            + (lease.isEmpty() ? "not there" : "not held") + " (is the " + driver.controllerApp()
            + " Deployment running?)";
      }
      if (expired(lease.get(), now)) {
        return "no " + sidecar.component + " leads: the Lease " + sidecar.leaseName(driver) + " of "
            + lease.get().getSpec().getHolderIdentity() + " expired (the replica stopped renewing it)";
      }
      return "";
    }

    static boolean expired(Lease lease, Instant now) {
      if (lease.getSpec() == null || lease.getSpec().getRenewTime() == null
          || lease.getSpec().getLeaseDurationSeconds() == null) {
        return false;
      }
      Instant renewed = lease.getSpec().getRenewTime().toInstant();
      return renewed.plusSeconds(lease.getSpec().getLeaseDurationSeconds()).isBefore(now);
    }

    boolean needsAttach() {
      if (csiDriver() != null && csiDriver().getSpec() != null && csiDriver().getSpec().getAttachRequired()
          != null) {
        return csiDriver().getSpec().getAttachRequired();
      }
      return driver.attachRequired;
    }

    Optional<CSINodeDriver> driverEntry(String node) {
      CSINode csiNode = csiNodes().get(node);
      if (csiNode == null || csiNode.getSpec() == null || csiNode.getSpec().getDrivers() == null) {
        return Optional.empty();
      }
      return csiNode.getSpec().getDrivers().stream().filter(e -> driver.csiName.equals(e.getName())).findFirst();
    }

    /** Whether the node plugin is registered on the node (CSINode); unknown CSINodes count as registered. */
    boolean registered(String node) {
      return !csiNodes().containsKey(node) || driverEntry(node).isPresent();
    }

    String notRegistered(String node) {
      Pod plugin = nodePlugins().get(node);
      return "the node plugin is not registered on " + node + " (CSINode " + node + " has no " + driver.csiName
          + ")" + (plugin == null ? "; no " + driver.nodeApp() + " pod runs there"
              : "; its pod " + plugin.getMetadata().getName() + " is "
                  + (plugin.getStatus() == null ? "Pending" : plugin.getStatus().getPhase())
                  + (Readiness.isPodReady(plugin) ? "" : ", not ready"));
    }
  }

  /** The events of the objects read, by object. */
  record Events(Map<String, List<Event>> byObject) {

    static String key(String kind, String namespace, String name) {
      return kind + "/" + (namespace == null ? "" : namespace) + "/" + name;
    }

    /** The object's events, newest last. */
    List<Event> of(HasMetadata object) {
      if (object == null) {
        return List.of();
      }
      return byObject.getOrDefault(key(object.getKind(), object.getMetadata().getNamespace(),
          object.getMetadata().getName()), List.of());
    }

    /** The newest Warning event of the object with one of these reasons. */
    Optional<Event> latestWarning(HasMetadata object, String... reasons) {
      List<String> wanted = List.of(reasons);
      return of(object).stream().filter(e -> "Warning".equals(e.getType()) && wanted.contains(e.getReason()))
          .max(Comparator.comparing(Views::time));
    }
  }

  /** One claim (or a PV without one) with everything around it. */
  record VolumeView(Instant now, PersistentVolumeClaim pvc, StorageClass storageClass, PersistentVolume pv,
                    GenericKubernetesResource restoreSource, List<VolumeAttachment> attachments, List<Pod> consumers,
                    Pod focus, Events events, DriverState driver, List<String> gaps) {}

  /**
   * One VolumeSnapshot, its content and the claim it snapshots.
   *
   * @param classMissing the VolumeSnapshotClass the snapshot names does not exist (read, not a gap)
   */
  record SnapshotView(Instant now, GenericKubernetesResource snapshot, GenericKubernetesResource content,
                      PersistentVolumeClaim source, PersistentVolume sourcePv, Events events, DriverState driver,
                      List<String> gaps, boolean classMissing) {}

  /** A VolumeGroupSnapshot and its content (null until snapshot-controller made one). */
  record GroupSnapshotView(Instant now, GenericKubernetesResource group, GenericKubernetesResource content,
                           Events events, DriverState driver, List<String> gaps, boolean classMissing) {}

  /** A claim whose StorageClass does not exist: no driver is known, only the claim and its events. */
  record ClassMissing(Instant now, PersistentVolumeClaim pvc, String className, Events events, List<String> gaps) {}

  /** When an event last happened: lastTimestamp, else its series or eventTime, else its creation. */
  static Instant time(Event e) {
    if (e.getSeries() != null && e.getSeries().getLastObservedTime() != null) {
      Instant t = instant(e.getSeries().getLastObservedTime().getTime());
      if (t != null) {
        return t;
      }
    }
    for (String s : new String[] {e.getLastTimestamp(),
        e.getEventTime() == null ? null : e.getEventTime().getTime(), e.getFirstTimestamp(),
        e.getMetadata() == null ? null : e.getMetadata().getCreationTimestamp()}) {
      Instant t = instant(s);
      if (t != null) {
        return t;
      }
    }
    return Instant.EPOCH;
  }

  /** A Kubernetes timestamp (RFC 3339, with or without fractions), or null. */
  static Instant instant(String s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(s).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** A claim's data source (dataSourceRef, else dataSource): what it is made from. */
  record DataSource(String kind, String name) {}

  static Optional<DataSource> dataSource(PersistentVolumeClaim pvc) {
    var ref = pvc.getSpec().getDataSourceRef();
    if (ref != null) {
      return Optional.of(new DataSource(ref.getKind(), ref.getName()));
    }
    var source = pvc.getSpec().getDataSource();
    return source == null ? Optional.empty() : Optional.of(new DataSource(source.getKind(), source.getName()));
  }

  static Instant created(HasMetadata o) {
    Instant t = o == null ? null : instant(o.getMetadata().getCreationTimestamp());
    return t == null ? Instant.EPOCH : t;
  }

  /** A reason the pod is not ready that is not its volume: an image pull, a crash, an unready container. */
  static Optional<String> otherReason(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
      return Optional.empty();
    }
    for (ContainerStatus s : pod.getStatus().getContainerStatuses()) {
      if (s.getState() != null && s.getState().getWaiting() != null) {
        String reason = s.getState().getWaiting().getReason();
        if (reason != null && !reason.equals("ContainerCreating") && !reason.equals("PodInitializing")) {
          return Optional.of("container " + s.getName() + " " + reason);
        }
      }
      if (s.getState() != null && s.getState().getRunning() != null && !Boolean.TRUE.equals(s.getReady())) {
        return Optional.of("container " + s.getName() + " running, not ready");
      }
    }
    return Optional.empty();
  }

  static List<Pod> active(List<Pod> pods) {
    return pods.stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null)
        .filter(p -> p.getStatus() == null || !List.of("Succeeded", "Failed").contains(p.getStatus().getPhase()))
        .toList();
  }

  static String phase(PersistentVolumeClaim pvc) {
    return pvc.getStatus() == null || pvc.getStatus().getPhase() == null ? "Pending" : pvc.getStatus().getPhase();
  }

  static String pvName(VolumeView v) {
    if (v.pv() != null) {
      return v.pv().getMetadata().getName();
    }
    return v.pvc() == null ? "" : empty(v.pvc().getSpec().getVolumeName());
  }

  static String storageClassName(VolumeView v) {
    return v.pvc() == null ? "" : empty(v.pvc().getSpec().getStorageClassName());
  }

  static String handle(PersistentVolume pv) {
    return pv == null || pv.getSpec().getCsi() == null ? "" : empty(pv.getSpec().getCsi().getVolumeHandle());
  }

  static String empty(String s) {
    return s == null ? "" : s;
  }

  static String orNone(String s) {
    return s == null || s.isEmpty() ? "none" : s;
  }
}
