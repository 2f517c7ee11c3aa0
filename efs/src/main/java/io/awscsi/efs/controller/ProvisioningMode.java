package io.awscsi.efs.controller;

/** How CreateVolume makes a volume. */
public enum ProvisioningMode {
  /** One EFS access point per volume (upstream's only EFS mode). */
  ACCESS_POINT("efs-ap"),
  /** One directory per volume under basePath, without an access point, so the access-point quota does not apply. */
  DIRECTORY("efs-dir");

  private final String parameterValue;

  ProvisioningMode(String parameterValue) {
    this.parameterValue = parameterValue;
  }

  /** The StorageClass value, e.g. "efs-ap". */
  public String parameterValue() {
    return parameterValue;
  }
}
