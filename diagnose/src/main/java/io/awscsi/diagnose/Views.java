package io.awscsi.diagnose;

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
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
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

  /** One VolumeSnapshot, its content and the claim it snapshots. */
  record SnapshotView(Instant now, GenericKubernetesResource snapshot, GenericKubernetesResource content,
                      PersistentVolumeClaim source, PersistentVolume sourcePv, Events events, DriverState driver,
                      List<String> gaps) {}

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
}
