package io.awscsi.efs.efsutils;

import io.awscsi.core.metrics.MetricsRegistry;

/**
 * efs-utils for the controller, started before its first mount: the controller mounts only for some StorageClasses
 * (efs-dir, --delete-access-point-root-dir), and mount.efs needs its configuration and CA bundle in place, while the
 * watchdog ends the TLS proxies those short mounts leave behind after their unmount. A controller that never mounts
 * starts neither.
 */
public final class EfsUtilsOnFirstMount implements Runnable, AutoCloseable {

  private final EfsUtilsNode.Options options;
  private final MetricsRegistry metrics;
  private EfsUtilsNode started;
  private boolean closed;

  public EfsUtilsOnFirstMount(EfsUtilsNode.Options options, MetricsRegistry metrics) {
    this.options = options;
    this.metrics = metrics;
  }

  /** Starts efs-utils unless it runs already. */
  @Override
  public synchronized void run() {
    if (started == null && !closed) {
      started = EfsUtilsNode.start(options, metrics);
    }
  }

  /** The efs-utils started, if any mount happened. */
  synchronized EfsUtilsNode started() {
    return started;
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (started != null) {
      started.close();
    }
  }
}
