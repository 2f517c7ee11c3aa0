package io.awscsi.launcher.kube;

/** When the driver counts as registered on its node, judged from the node's CSINode object. */
public enum RegistrationCondition {
  /** The driver is listed in {@code CSINode.spec.drivers} (EFS). */
  DRIVER_LISTED,
  /**
   * The driver is listed and its {@code allocatable.count} is set (EBS), so the scheduler already knows the node's
   * attach limit when pods start landing on it.
   */
  ALLOCATABLE_COUNT_SET
}
