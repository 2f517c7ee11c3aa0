package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.Locale;
import java.util.Map;

/**
 * The provisioner secret's keys for cross-account volumes (upstream names): {@code awsRoleArn} to assume through STS,
 * optional {@code externalId}, and {@code crossaccount} ("true": the node resolves the mount target by DNS).
 * Other keys are ignored, as a secret may hold more than this driver reads.
 */
public record ProvisionerSecrets(String roleArn, String externalId, boolean crossAccountDns) {

  static final String ROLE_ARN = "awsRoleArn";
  static final String EXTERNAL_ID = "externalId";
  static final String CROSS_ACCOUNT = "crossaccount";

  public static final ProvisionerSecrets NONE = new ProvisionerSecrets("", "", false);

  public static ProvisionerSecrets parse(Map<String, String> secrets) {
    String roleArn = secrets.getOrDefault(ROLE_ARN, "").strip();
    String externalId = secrets.getOrDefault(EXTERNAL_ID, "").strip();
    String crossAccount = secrets.getOrDefault(CROSS_ACCOUNT, "false").strip().toLowerCase(Locale.ROOT);
    if (!crossAccount.equals("true") && !crossAccount.equals("false")) {
      throw DriverException.invalidArgument("secrets", "provisioner secret key " + CROSS_ACCOUNT + " must be true "
          + "or false");
    }
    if (roleArn.isEmpty() && !externalId.isEmpty()) {
      throw DriverException.invalidArgument("secrets", "provisioner secret has " + EXTERNAL_ID + " but no "
          + ROLE_ARN + "; add the role to assume");
    }
    if (!roleArn.isEmpty() && !roleArn.startsWith("arn:")) {
      throw DriverException.invalidArgument("secrets", "provisioner secret " + ROLE_ARN + " \"" + roleArn
          + "\" is not a role ARN");
    }
    return new ProvisionerSecrets(roleArn, externalId, crossAccount.equals("true"));
  }

  /** Whether the file system lives in another account (a role to assume is named). */
  public boolean crossAccount() {
    return !roleArn.isEmpty();
  }
}
