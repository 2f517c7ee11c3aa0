package io.awscsi.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeRequest;
import csi.v1.NodeStageVolumeRequest;
import io.awscsi.core.logging.backend.LineLogging;
import io.awscsi.core.logging.backend.LogLineFormat;
import io.awscsi.core.logging.backend.LogRecord;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.logging.log4j.Level;
import org.junit.jupiter.api.Test;

class SecretValuesTest {

  /** A value no other test remembers (the set is process-wide). */
  private static String unique(String prefix) {
    return prefix + UUID.randomUUID();
  }

  @Test
  void aRequestsSecretValuesAreMaskedInAnyTextAndOtherTextIsLeftAlone() {
    String role = unique("arn:aws:iam::123456789012:role/");
    String external = unique("ext-");
    SecretValues.rememberFrom(CreateVolumeRequest.newBuilder().setName("pvc-1")
        .putSecrets("awsRoleArn", "  " + role + "\n").putSecrets("externalId", external)
        .putSecrets("crossaccount", "true").build());

    assertThat(SecretValues.redact("not authorized on resource: " + role + " (" + external + ")"))
        .isEqualTo("not authorized on resource: " + SecretValues.MASK + " (" + SecretValues.MASK + ")");
    assertThat(SecretValues.redact("crossaccount true stays true")).as("short values are not searched for")
        .isEqualTo("crossaccount true stays true");
    assertThat(SecretValues.redact(null)).isNull();
  }

  @Test
  void aValueContainingAnotherIsMaskedWhole() {
    String inner = unique("token-");
    String outer = "Bearer " + inner + "-suffix";
    SecretValues.remember(List.of(inner, outer));

    assertThat(SecretValues.redact("header " + outer)).isEqualTo("header " + SecretValues.MASK);
  }

  @Test
  void nodeRequestSecretsCountToo() {
    String password = unique("pw-");
    SecretValues.rememberFrom(NodeStageVolumeRequest.newBuilder().setVolumeId("v").putSecrets("p", password).build());

    assertThat(SecretValues.redact(password)).isEqualTo(SecretValues.MASK);
  }

  @Test
  void theSetIsBoundedAndForgetsTheOldestFirst() {
    String oldest = unique("oldest-");
    SecretValues.remember(List.of(oldest));
    for (int i = 0; i < SecretValues.CAPACITY; i++) {
      SecretValues.remember(List.of(unique("filler-" + i + "-")));
    }
    String newest = unique("newest-");
    SecretValues.remember(List.of(newest));

    assertThat(SecretValues.redact(oldest)).isEqualTo(oldest);
    assertThat(SecretValues.redact(newest)).isEqualTo(SecretValues.MASK);
  }

  @Test
  void bothLogFormatsMaskRememberedValuesInMessagesFieldsAndExceptions() {
    String secret = unique("s3cr3t-");
    SecretValues.remember(List.of(secret));
    LogRecord record = new LogRecord(Instant.now(), Level.ERROR, "io.awscsi.X", "main", "assume " + secret,
        Map.of("volumeId", secret), new IllegalStateException("sts said " + secret));

    for (LogLineFormat format : LogLineFormat.values()) {
      assertThat(LineLogging.render(format, record)).as(format.name()).doesNotContain(secret)
          .contains(SecretValues.MASK);
    }
  }
}
