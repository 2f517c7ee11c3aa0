package io.awscsi.core.logging;

import static org.assertj.core.api.Assertions.assertThat;

import csi.v1.CreateVolumeRequest;
import csi.v1.CreateVolumeResponse;
import csi.v1.NodeStageVolumeRequest;
import csi.v1.Volume;
import csi.v1.VolumeCapability;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestRedactorTest {

  private static final String MASK = RequestRedactor.MASK;

  @Test
  void masksEverySecretAndSecretLookingParameterButKeepsTheRest() {
    CreateVolumeRequest request = CreateVolumeRequest.newBuilder()
        .setName("pvc-1")
        .putSecrets("password", "hunter2")
        .putSecrets("username", "admin-user")
        .putParameters("type", "gp3")
        .putParameters("csi.storage.k8s.io/provisioner-secret-name", "ebs-provisioner-creds")
        .putParameters("awsRoleArn", "arn:aws:iam::123456789012:role/cross-account")
        .putParameters("encrypted", "true")
        .putMutableParams("iops", "4000")
        .build();

    String rendered = RequestRedactor.render(request);

    assertThat(rendered)
        .doesNotContain("hunter2", "admin-user", "ebs-provisioner-creds", "arn:aws:iam::123456789012")
        .contains("pvc-1", "gp3", "encrypted", "4000")
        .contains("password", "awsRoleArn", "csi.storage.k8s.io/provisioner-secret-name")
        .contains(MASK)
        .doesNotContain("\n");
    assertThat(request.getSecretsMap()).containsEntry("password", "hunter2");
  }

  @Test
  void masksSecretLookingContextsInNestedMessagesToo() {
    NodeStageVolumeRequest stage = NodeStageVolumeRequest.newBuilder()
        .setVolumeId("vol-1")
        .setStagingTargetPath("/staging")
        .setVolumeCapability(VolumeCapability.newBuilder().setMount(VolumeCapability.MountVolume.newBuilder()
            .setFsType("ext4")))
        .putPublishContext("devicePath", "/dev/xvdba")
        .putVolumeContext("storage.kubernetes.io/csiProvisionerIdentity", "1700000000000-ebs")
        .putVolumeContext("sessionToken", "FQoGZXIvYXdzEJr")
        .putSecrets("apiKey", "k-123")
        .build();
    CreateVolumeResponse response = CreateVolumeResponse.newBuilder().setVolume(Volume.newBuilder()
        .setVolumeId("vol-1").putVolumeContext("clientCertificate", "-----BEGIN CERT")).build();

    String stageText = RequestRedactor.render(stage);
    String responseText = RequestRedactor.render(response);

    assertThat(stageText).doesNotContain("FQoGZXIvYXdzEJr", "k-123")
        .contains("/dev/xvdba", "1700000000000-ebs", "ext4");
    assertThat(responseText).doesNotContain("BEGIN CERT").contains("vol-1", MASK);
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      "password,                                     true",
      "csi.storage.k8s.io/node-stage-secret-name,    true",
      "csi.storage.k8s.io/provisioner-secret-namespace, true",
      "awsRoleArn,                                   true",
      "AWSROLEARN,                                   true",
      "externalId,                                   true",
      "aws_session_token,                            true",
      "accessKeyId,                                  true",
      "privateKey,                                   true",
      "tlsCertificate,                               true",
      "apikey,                                       true",
      "credentials,                                  true",
      "type,                                         false",
      "iops,                                         false",
      "fsType,                                       false",
      "kmsKeyId,                                     false",
      "provisioningMode,                             false",
      "devicePath,                                   false",
      "csi.storage.k8s.io/pvc/name,                  false",
  })
  void recognisesSecretKeys(String key, boolean secret) {
    assertThat(RequestRedactor.isSecretKey(key)).isEqualTo(secret);
  }
}
