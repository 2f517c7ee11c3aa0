package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two EBS controller replicas elect their leaders through coordination.k8s.io Leases (one per sidecar). Killing the
 * replica that leads hands every Lease to the other replica (holder changes, leaseTransitions grows), and a PVC
 * created during the failover still binds. The takeover time is printed.
 */
class LeaderElectionTest extends ClusterCase {

  static final List<String> EBS_LEASES = List.of("ebs-csi-aws-com", "external-attacher-leader-ebs-csi-aws-com",
      "external-resizer-ebs-csi-aws-com", "external-snapshotter-leader-ebs-csi-aws-com");

  @Test
  void otherReplicaTakesOverWhenTheLeaderDies() {
    Steps steps = new Steps("leader failover");
    String provisionerLease = EBS_LEASES.getFirst();
    Map<String, Lease> before = new LinkedHashMap<>();
    steps.step("every EBS sidecar Lease held by a controller replica", () -> {
      for (String name : EBS_LEASES) {
        Eventually.await("lease " + name + " held", Duration.ofMinutes(2), () -> holder(lease(name)) != null);
        before.put(name, lease(name));
        assertThat(holder(lease(name))).as("holder of %s", name).startsWith("ebs-csi-controller-");
      }
      return holder(before.get(EBS_LEASES.getFirst()));
    });
    String leader = holder(before.get(provisionerLease));
    int transitions = transitions(before.get(provisionerLease));
    String sc = cluster.storageClass("immediate", Map.of("type", "gp3"), "Immediate");
    long[] killedAt = new long[1];
    steps.step("leader " + leader + " killed, a PVC created during the failover", () -> {
      cluster.driver().killControllerReplica(leader);
      killedAt[0] = System.nanoTime();
      cluster.createPvc("during-failover", sc, "1Gi", "ReadWriteOnce");
    });
    String newLeader = steps.step("the other replica takes the provisioner's Lease", () -> {
      Eventually.await("a new holder of " + provisionerLease, Duration.ofMinutes(2), () -> {
        String h = holder(lease(provisionerLease));
        return h != null && !h.equals(leader);
      });
      return holder(lease(provisionerLease));
    });
    long takeoverMs = Duration.ofNanos(System.nanoTime() - killedAt[0]).toMillis();
    System.out.printf("[leader failover] takeover time %d ms (%s -> %s; lease duration %ss)%n", takeoverMs, leader,
        newLeader, lease(provisionerLease).getSpec().getLeaseDurationSeconds());
    steps.step("leaseTransitions grew", () -> {
      assertThat(transitions(lease(provisionerLease))).isGreaterThan(transitions);
      return transitions + " -> " + transitions(lease(provisionerLease));
    });
    steps.step("the PVC created during the failover binds", () -> cluster.awaitBound("during-failover")
        .getSpec().getCsi().getVolumeHandle());
    // Off the killed replica: to the survivor, or (the chart's pods) to the replacement the Deployment starts at
    // once, which may win a Lease the survivor has not taken yet.
    steps.step("every other sidecar Lease moved off " + leader, () -> {
      for (String name : EBS_LEASES.subList(1, EBS_LEASES.size())) {
        Eventually.await("lease " + name + " held by a replica other than " + leader, Duration.ofMinutes(2), () -> {
          String h = holder(lease(name));
          return h != null && !h.equals(leader);
        });
      }
      return EBS_LEASES.stream().map(n -> holder(lease(n))).toList();
    });
    steps.step("the killed replica comes back", () -> cluster.driver().restoreControllerReplica(leader));
    steps.summary();
  }

  private Lease lease(String name) {
    return cluster.client.resources(Lease.class).inNamespace(ClusterFixture.DRIVER_NAMESPACE).withName(name).get();
  }

  private static String holder(Lease lease) {
    String h = lease == null ? null : lease.getSpec().getHolderIdentity();
    return h == null || h.isEmpty() ? null : h;
  }

  private static int transitions(Lease lease) {
    Integer t = lease.getSpec().getLeaseTransitions();
    return t == null ? 0 : t;
  }
}
