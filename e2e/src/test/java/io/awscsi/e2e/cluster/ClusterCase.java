package io.awscsi.e2e.cluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A case of the cluster suite: skipped unless a cluster is configured ({@link ClusterAvailable}), a
 * {@link ClusterFixture} of its own opened before each case (after {@link #assumptions()}) and closed after it,
 * with its teardown check, and the cluster's state printed when the case fails ({@link DumpOnFailure}). A class's own
 * {@code @BeforeEach} methods run after the fixture is open, its {@code @AfterEach} methods before it is closed.
 */
@Tag("cluster")
@ExtendWith({ClusterAvailable.class, DumpOnFailure.class})
abstract class ClusterCase {

  ClusterFixture cluster;

  /** What the cases of a class need of the target, checked (JUnit assumptions) before a namespace is made. */
  void assumptions() {
  }

  @BeforeEach
  final void openCluster() {
    assumptions();
    cluster = ClusterFixture.open();
  }

  @AfterEach
  final void closeCluster() {
    if (cluster != null) {
      cluster.close();
    }
  }
}
