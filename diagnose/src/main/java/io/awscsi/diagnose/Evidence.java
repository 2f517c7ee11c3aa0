package io.awscsi.diagnose;

import static io.awscsi.diagnose.Views.handle;
import static io.awscsi.diagnose.Views.orNone;
import static io.awscsi.diagnose.Views.otherReason;
import static io.awscsi.diagnose.Views.phase;
import static io.awscsi.diagnose.Views.pvName;
import static io.awscsi.diagnose.Views.storageClassName;

import io.awscsi.diagnose.Knowledge.Actor;
import io.awscsi.diagnose.Views.DriverState;
import io.awscsi.diagnose.Views.VolumeView;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.CSINodeDriver;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.readiness.Readiness;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/** What a diagnosis saw, one line each: the claim, PV, attachments, pods, each node's registration, the Leases. */
final class Evidence {

  private Evidence() {}

  static void describe(VolumeView v, List<String> seen) {
    PersistentVolumeClaim pvc = v.pvc();
    if (pvc != null) {
      Quantity requested = pvc.getSpec().getResources() == null || pvc.getSpec().getResources().getRequests() == null
          ? null : pvc.getSpec().getResources().getRequests().get("storage");
      Quantity capacity = pvc.getStatus() == null || pvc.getStatus().getCapacity() == null ? null
          : pvc.getStatus().getCapacity().get("storage");
      seen.add("PVC " + pvc.getMetadata().getNamespace() + "/" + pvc.getMetadata().getName() + ": " + phase(pvc)
          + (pvName(v).isEmpty() ? "" : " to " + pvName(v)) + ", requested " + requested + ", capacity "
          + (capacity == null ? "-" : capacity) + ", StorageClass " + orNone(storageClassName(v))
          + (v.storageClass() == null ? "" : " (" + v.storageClass().getProvisioner() + ", "
              + Objects.requireNonNullElse(v.storageClass().getVolumeBindingMode(), "Immediate") + ")"));
    }
    if (v.pv() != null) {
      PersistentVolume pv = v.pv();
      seen.add("PV " + pv.getMetadata().getName() + ": " + handle(pv) + ", phase "
          + (pv.getStatus() == null ? "-" : pv.getStatus().getPhase()) + ", reclaim "
          + pv.getSpec().getPersistentVolumeReclaimPolicy());
    }
    for (VolumeAttachment va : v.attachments()) {
      boolean attached = va.getStatus() != null && Boolean.TRUE.equals(va.getStatus().getAttached());
      seen.add("VolumeAttachment " + va.getMetadata().getName() + ": node " + va.getSpec().getNodeName() + ", "
          + (attached ? "attached" : "not attached") + (va.getMetadata().getDeletionTimestamp() == null ? ""
              : ", being deleted"));
    }
    for (Pod p : v.consumers()) {
      seen.add("pod " + p.getMetadata().getName() + ": " + (p.getStatus() == null ? "Pending" : p.getStatus().getPhase())
          + (p.getSpec().getNodeName() == null ? ", not scheduled" : " on " + p.getSpec().getNodeName())
          + (Readiness.isPodReady(p) ? ", ready" : otherReason(p).map(r -> ", " + r).orElse(", not ready")));
    }
    DriverState d = v.driver();
    for (String node : d.csiNodes().keySet().isEmpty() ? v.consumers().stream().map(p -> p.getSpec().getNodeName())
        .filter(Objects::nonNull).distinct().toList() : List.copyOf(d.csiNodes().keySet())) {
      seen.add(registration(d, node));
      Pod plugin = d.nodePlugins().get(node);
      seen.add("node plugin on " + node + ": " + (plugin == null ? "no " + d.driver().nodeApp() + " pod"
          : plugin.getMetadata().getNamespace() + "/" + plugin.getMetadata().getName() + " "
              + (plugin.getStatus() == null ? "Pending" : plugin.getStatus().getPhase())
              + (Readiness.isPodReady(plugin) ? ", ready" : ", not ready")));
    }
    for (Actor sidecar : d.driver().sidecars) {
      sidecarEvidence(d, sidecar, v.now(), seen);
    }
  }

  static void sidecarEvidence(DriverState d, Actor sidecar, Instant now, List<String> seen) {
    Optional<Lease> lease = d.lease(sidecar);
    seen.add("Lease " + sidecar.leaseName(d.driver()) + " (" + sidecar.component + "): " + lease.map(l ->
        "held by " + orNone(l.getSpec().getHolderIdentity()) + (DriverState.expired(l, now) ? ", expired" : "")
            + (d.leaseHolder(sidecar).isPresent() ? "" : " (no pod of that name)"))
        .orElse("not found"));
  }

  private static String registration(DriverState d, String node) {
    CSINode csiNode = d.csiNodes().get(node);
    if (csiNode == null) {
      return "CSINode " + node + ": not found";
    }
    Optional<CSINodeDriver> entry = d.driverEntry(node);
    return "CSINode " + node + ": " + entry.map(e -> d.driver().csiName + " registered, node id " + e.getNodeID()
        + (e.getAllocatable() != null && e.getAllocatable().getCount() != null ? ", allocatable "
            + e.getAllocatable().getCount() + " volumes" : "")).orElse(d.driver().csiName + " not registered");
  }
}
