package io.awscsi.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The soak under faults ({@link Soak}, issue 29). In {@code make test} (pods mode, CHART_PODS_TESTS) the short
 * version: about 3 minutes with the fixed seed 29, so a regression in recovery fails the suite. {@code make soak} runs
 * the same case long: SOAK_MINUTES (30 by default there), SOAK_SEED, SOAK_VOLUMES, SOAK_OP_SECONDS and
 * SOAK_FAULT_SECONDS set it. The ledger must be all zero.
 */
class SoakTest extends ClusterCase {

  @Override
  void assumptions() {
    assumeTrue(ClusterFixture.target() instanceof ClusterTarget.Local local && !local.cluster().hostProcesses(),
        "the soak needs the local cluster with the drivers as pods (KUBE_LOCAL_DRIVER=chart): its faults restart"
            + " the cluster's own components");
  }

  @Test
  void aSoakUnderFaultsLeavesTheLedgerAllZero() {
    Soak.Config config = Soak.Config.fromEnvironment(Duration.ofMinutes(3), 29, 4);
    Soak.Ledger ledger = new Soak(cluster, config).run();

    System.out.println("[soak] ledger\n" + ledger.table());
    assertThat(ledger.faults()).as("faults injected").isNotEmpty();
    assertThat(ledger.operations().values().stream().mapToInt(i -> i).sum()).as("operations done")
        .isGreaterThan(config.volumes());
    assertThat(ledger.clean()).as("the ledger is all zero:\n%s", ledger.table()).isTrue();
  }
}
