package io.awscsi.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class DeferredNodeInfoTest {

  private static final NodeInfo INFO = new NodeInfo("i-0abc", 25, Map.of("topology.ebs.csi.aws.com/zone", "us-east-1a"));

  @Test
  void notReadyWhileReadingThenReadyWithTheInfo() throws Exception {
    var release = new CountDownLatch(1);
    DeferredNodeInfo info = DeferredNodeInfo.start(() -> {
      await(release);
      return INFO;
    });
    NodeProvider node = info.gate(node(Readiness.ready()));

    assertThat(node.readiness()).isEqualTo(new Readiness.NotReady("reading this node's instance metadata"));

    release.countDown();
    assertThat(info.awaitFailure()).isEmpty();
    assertThat(node.readiness()).isEqualTo(Readiness.ready());
    assertThat(info.get()).isEqualTo(INFO);
  }

  @Test
  void nodeGetInfoWaitsForTheRead() throws Exception {
    var release = new CountDownLatch(1);
    DeferredNodeInfo info = DeferredNodeInfo.start(() -> {
      await(release);
      return INFO;
    });
    var answered = new CountDownLatch(1);
    Thread.ofVirtual().start(() -> {
      info.get();
      answered.countDown();
    });

    assertThat(answered.await(200, TimeUnit.MILLISECONDS)).as("no answer before the metadata").isFalse();
    release.countDown();
    assertThat(answered.await(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aFailedReadIsReportedByProbeByNodeGetInfoAndAtStart() {
    DeferredNodeInfo info = DeferredNodeInfo.start(() -> {
      throw new IllegalStateException("no answer from http://169.254.169.254 for /latest/api/token");
    });

    assertThat(info.awaitFailure()).contains("no answer from http://169.254.169.254 for /latest/api/token");
    assertThat(info.gate(node(Readiness.ready())).readiness()).isEqualTo(new Readiness.NotReady(
        "instance metadata: no answer from http://169.254.169.254 for /latest/api/token"));
    assertThatThrownBy(info::get).isInstanceOf(DriverException.class)
        .hasMessageContaining("this node's instance metadata is unknown: no answer from http://169.254.169.254");
  }

  @Test
  void onceKnownTheNodesOwnReadinessDecides() {
    DeferredNodeInfo info = DeferredNodeInfo.start(() -> INFO);
    info.awaitFailure();

    assertThat(info.gate(node(new Readiness.NotReady("mkfs.xfs is missing"))).readiness())
        .isEqualTo(new Readiness.NotReady("mkfs.xfs is missing"));
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static NodeProvider node(Readiness readiness) {
    return new NodeProvider() {
      @Override
      public NodeInfo nodeInfo() {
        return INFO;
      }

      @Override
      public VolumePublisher publisher() {
        return null;
      }

      @Override
      public Readiness readiness() {
        return readiness;
      }
    };
  }
}
