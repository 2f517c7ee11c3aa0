package io.awscsi.launcher.kube;

import io.awscsi.aws.Environment;
import io.awscsi.aws.metadata.KubernetesMetadataSource;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the startup taint is removed: which driver's taint, when the driver counts as registered, and the retry
 * schedule (the delay starts at {@code initialDelay}, grows by {@code backoffFactor} up to {@code maxDelay}, and the
 * remover gives up once {@code deadline} has passed since it started).
 */
public record StartupTaintSettings(
    String driverName,
    RegistrationCondition condition,
    Duration initialDelay,
    double backoffFactor,
    Duration maxDelay,
    Duration deadline) {

  /** Set (to anything but {@code false}) to leave the taint alone, as upstream's opt-out. */
  public static final String DISABLE_VARIABLE = "DISABLE_TAINT_WATCHER";

  /** The node's name, from the downward API (a constant: reading it loads no Kubernetes client class). */
  public static final String NODE_NAME_VARIABLE = KubernetesMetadataSource.NODE_NAME_VARIABLE;

  /** Upstream's watcher gives up after about 10 minutes. */
  public static final Duration DEFAULT_DEADLINE = Duration.ofMinutes(10);

  public StartupTaintSettings {
    Objects.requireNonNull(driverName, "driverName");
    Objects.requireNonNull(condition, "condition");
    Objects.requireNonNull(initialDelay, "initialDelay");
    Objects.requireNonNull(maxDelay, "maxDelay");
    Objects.requireNonNull(deadline, "deadline");
    if (driverName.isBlank()) {
      throw new IllegalArgumentException("driverName is blank");
    }
    if (initialDelay.isNegative() || initialDelay.isZero() || maxDelay.compareTo(initialDelay) < 0) {
      throw new IllegalArgumentException(
          "need 0 < initialDelay <= maxDelay, got " + initialDelay + " and " + maxDelay);
    }
    if (backoffFactor < 1.0) {
      throw new IllegalArgumentException("backoffFactor must be >= 1, was " + backoffFactor);
    }
  }

  /**
   * Why removal does not apply here, if it does not: the opt-out is set, or the node's name is unknown. Needs no
   * Kubernetes client, so a node decides this without loading one.
   */
  public static Optional<String> skipReason(Environment environment) {
    Optional<String> disabled = environment.get(DISABLE_VARIABLE).filter(v -> !v.equalsIgnoreCase("false"));
    if (disabled.isPresent()) {
      return Optional.of(DISABLE_VARIABLE + "=" + disabled.get() + " is set");
    }
    if (environment.get(NODE_NAME_VARIABLE).isEmpty()) {
      return Optional.of(NODE_NAME_VARIABLE + " is not set, so this node's name is unknown");
    }
    return Optional.empty();
  }

  /** EBS: taint removed once CSINode has the driver with its allocatable count. */
  public static StartupTaintSettings forEbs() {
    return standard("ebs.csi.aws.com", RegistrationCondition.ALLOCATABLE_COUNT_SET);
  }

  /** EFS: taint removed once CSINode lists the driver. */
  public static StartupTaintSettings forEfs() {
    return standard("efs.csi.aws.com", RegistrationCondition.DRIVER_LISTED);
  }

  private static StartupTaintSettings standard(String driverName, RegistrationCondition condition) {
    return new StartupTaintSettings(
        driverName, condition, Duration.ofSeconds(1), 1.5, Duration.ofSeconds(30), DEFAULT_DEADLINE);
  }

  /** The taint key, e.g. {@code ebs.csi.aws.com/agent-not-ready}; any effect matches. */
  public String taintKey() {
    return driverName + "/agent-not-ready";
  }

  /** A copy with another schedule (tests use milliseconds). */
  public StartupTaintSettings withSchedule(Duration initialDelay, Duration maxDelay, Duration deadline) {
    return new StartupTaintSettings(driverName, condition, initialDelay, backoffFactor, maxDelay, deadline);
  }
}
