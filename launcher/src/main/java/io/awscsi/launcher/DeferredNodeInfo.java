package io.awscsi.launcher;

import io.awscsi.core.errors.DriverException;
import io.awscsi.core.provider.NodeInfo;
import io.awscsi.core.provider.NodeProvider;
import io.awscsi.core.provider.NodeVolumeExpander;
import io.awscsi.core.provider.Readiness;
import io.awscsi.core.provider.VolumePublisher;
import io.awscsi.core.provider.VolumeStager;
import io.awscsi.core.provider.VolumeStatsReader;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;

/**
 * The node's identity (instance id, zone, attach limit), read on a virtual thread while the gRPC server starts:
 * instance metadata takes several IMDS round trips and only NodeGetInfo needs it, so the two overlap instead of
 * adding up. NodeGetInfo waits for it; Probe answers not ready until it is known; a failure stops the process, as a
 * failed start did before.
 */
final class DeferredNodeInfo implements Supplier<NodeInfo> {

  private final CompletableFuture<NodeInfo> result = new CompletableFuture<>();

  private DeferredNodeInfo() {}

  /** Starts reading {@code source} in the background. */
  static DeferredNodeInfo start(Supplier<NodeInfo> source) {
    var deferred = new DeferredNodeInfo();
    Thread.ofVirtual().name("node-info").start(() -> {
      try {
        deferred.result.complete(source.get());
      } catch (RuntimeException | Error e) {
        deferred.result.completeExceptionally(e);
      }
    });
    return deferred;
  }

  /** Waits for the node info; UNAVAILABLE with the reason when it could not be read. */
  @Override
  public NodeInfo get() {
    try {
      return result.join();
    } catch (CompletionException e) {
      throw DriverException.unavailable("this node's instance metadata is unknown: " + reason(e), e.getCause());
    }
  }

  /** Waits until the read has ended; the reason when it failed. */
  Optional<String> awaitFailure() {
    try {
      result.join();
      return Optional.empty();
    } catch (CompletionException e) {
      return Optional.of(reason(e));
    }
  }

  Readiness readiness() {
    if (!result.isDone()) {
      return new Readiness.NotReady("reading this node's instance metadata");
    }
    return awaitFailure().<Readiness>map(r -> new Readiness.NotReady("instance metadata: " + r))
        .orElse(Readiness.ready());
  }

  /** {@code node}, reporting not ready until this node info is known. */
  NodeProvider gate(NodeProvider node) {
    return new GatedNode(node, this);
  }

  private static String reason(CompletionException e) {
    Throwable cause = e.getCause() != null ? e.getCause() : e;
    return cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
  }

  private record GatedNode(NodeProvider node, DeferredNodeInfo info) implements NodeProvider {

    @Override
    public NodeInfo nodeInfo() {
      return node.nodeInfo();
    }

    @Override
    public VolumePublisher publisher() {
      return node.publisher();
    }

    @Override
    public Optional<VolumeStager> stager() {
      return node.stager();
    }

    @Override
    public Optional<NodeVolumeExpander> expander() {
      return node.expander();
    }

    @Override
    public Optional<VolumeStatsReader> stats() {
      return node.stats();
    }

    @Override
    public io.awscsi.core.provider.IdSyntax ids() {
      return node.ids();
    }

    @Override
    public boolean supportsVolumeMountGroup() {
      return node.supportsVolumeMountGroup();
    }

    @Override
    public Readiness readiness() {
      Readiness own = info.readiness();
      return own instanceof Readiness.NotReady ? own : node.readiness();
    }
  }
}
