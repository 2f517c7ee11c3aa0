package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.errors.GrpcErrors;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ProvisionerSecretsTest {

  @ParameterizedTest
  @ValueSource(strings = {"not-an-arn-s3cr3t", "arn:aws:iam::12345:role/s3cr3t", "arn:aws:s3:::s3cr3t-bucket",
      "arn:aws:iam::123456789012:role/s3cr3t\n2026 INFO forged", "arn:aws:iam::123456789012:user/s3cr3t"})
  void aRoleThatIsNotARoleArnIsRefusedNamingTheKeyNeverTheValue(String value) {
    assertThatThrownBy(() -> ProvisionerSecrets.parse(Map.of("awsRoleArn", value)))
        .isInstanceOfSatisfying(DriverException.class, e -> {
          assertThat(e.error()).isInstanceOf(DriverError.InvalidArgument.class);
          String answer = GrpcErrors.toStatus(e.error()).getDescription();
          assertThat(answer).contains("awsRoleArn").doesNotContain("s3cr3t");
          assertThat(e.getMessage()).doesNotContain("s3cr3t");
        });
  }

  @Test
  void aRoleArnIsTakenAndNeverPrinted() {
    String role = "arn:aws:iam::123456789012:role/team/efs-owner";
    ProvisionerSecrets secrets = ProvisionerSecrets.parse(Map.of("awsRoleArn", " " + role + " ",
        "externalId", "external-s3cr3t", "crossaccount", "true"));

    assertThat(secrets.roleArn()).isEqualTo(role);
    assertThat(secrets.crossAccount()).isTrue();
    assertThat(secrets.toString()).doesNotContain(role, "external-s3cr3t").contains("crossaccount=true");
  }

  @Test
  void otherKeysErrorsNameKeysOnly() {
    assertThatThrownBy(() -> ProvisionerSecrets.parse(Map.of("crossaccount", "s3cr3t-maybe")))
        .hasMessageContaining("crossaccount").hasMessageNotContaining("s3cr3t");
    assertThatThrownBy(() -> ProvisionerSecrets.parse(Map.of("externalId", "s3cr3t-ext")))
        .hasMessageContaining("externalId").hasMessageNotContaining("s3cr3t");
  }
}
