package io.awscsi.efs.controller;

import io.awscsi.core.errors.DriverException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The provisioner secret's keys for cross-account volumes (upstream names): {@code awsRoleArn} to assume through STS,
 * optional {@code externalId}, and {@code crossaccount} ("true": the node resolves the mount target by DNS).
 * Other keys are ignored, as a secret may hold more than this driver reads. Errors name a key, never a value, and
 * {@link #toString()} masks both values.
 */
public record ProvisionerSecrets(String roleArn, String externalId, boolean crossAccountDns) {

  static final String ROLE_ARN = "awsRoleArn";
  static final String EXTERNAL_ID = "externalId";
  static final String CROSS_ACCOUNT = "crossaccount";

  /** An IAM role ARN as STS AssumeRole accepts it (a path before the name allowed). */
  private static final Pattern ROLE_ARN_FORM =
      Pattern.compile("arn:aws[a-z-]{0,16}:iam::[0-9]{12}:role/[\\w+=,.@/-]{1,512}");

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
    if (!roleArn.isEmpty() && !ROLE_ARN_FORM.matcher(roleArn).matches()) {
      // The key, never the value: what the secret holds must not reach the answer, the log or an event.
      throw DriverException.invalidArgument("secrets", "provisioner secret key " + ROLE_ARN + " is not an IAM role "
          + "ARN (arn:<partition>:iam::<12-digit account>:role/<name>); its value is not shown");
    }
    return new ProvisionerSecrets(roleArn, externalId, crossAccount.equals("true"));
  }

  /** Masks the role and external id: a record's default text would put them in any log line that prints it. */
  @Override
  public String toString() {
    return "ProvisionerSecrets[awsRoleArn=" + (roleArn.isEmpty() ? "" : "***") + ", externalId="
        + (externalId.isEmpty() ? "" : "***") + ", crossaccount=" + crossAccountDns + "]";
  }

  /** Whether the file system lives in another account (a role to assume is named). */
  public boolean crossAccount() {
    return !roleArn.isEmpty();
  }
}
