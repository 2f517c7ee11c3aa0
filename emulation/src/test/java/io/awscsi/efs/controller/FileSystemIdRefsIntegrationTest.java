package io.awscsi.efs.controller;

import java.util.Optional;
import io.awscsi.emulation.efs.LocalDirectoryMountBackend;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.awscsi.core.errors.DriverError;
import io.awscsi.core.errors.DriverException;
import io.awscsi.core.host.LinuxMounter;
import io.awscsi.core.host.ProcessCommandRunner;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.provider.AccessMode;
import io.awscsi.core.provider.CapacityRange;
import io.awscsi.core.provider.TopologyRequirement;
import io.awscsi.core.provider.Volume;
import io.awscsi.core.provider.VolumeCapability;
import io.awscsi.core.provider.VolumeRequest;
import io.awscsi.core.provider.VolumeSource;
import io.awscsi.efs.cloud.EfsCloudFactory;
import io.awscsi.efs.testing.MotoEfs;
import io.awscsi.realism.RealismProfile;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fileSystemIdConfigRef} and {@code fileSystemIdSecretRef} read through fabric8's mock API server: the id is
 * used, and every failure is answered with its code, naming the parameter.
 */
@Tag("integration")
class FileSystemIdRefsIntegrationTest {

  private static final String CM = "/api/v1/namespaces/storage/configmaps/";
  private static final String SECRET = "/api/v1/namespaces/storage/secrets/";

  @TempDir Path dir;
  private KubernetesMockServer server;
  private KubernetesClient client;
  private FileSystemIdRefs.Reader refs;

  @BeforeEach
  void setUp() {
    server = new KubernetesMockServer(false);
    server.init(java.net.InetAddress.getLoopbackAddress(), 0);
    client = server.createClient(b -> b.editOrNewConfig().withRequestRetryBackoffLimit(0).endConfig());
    refs = FileSystemIdRefs.Reader.of(new KubernetesValueReader(() -> client));
    server.expect().get().withPath(CM + "efs").andReturn(200, new ConfigMapBuilder().withNewMetadata()
        .withName("efs").withNamespace("storage").endMetadata().withData(Map.of("fsid", " fs-0123abcd\n")).build())
        .always();
    server.expect().get().withPath(SECRET + "efs").andReturn(200, new SecretBuilder().withNewMetadata()
        .withName("efs").withNamespace("storage").endMetadata().withData(Map.of("id", Base64.getEncoder()
            .encodeToString("fs-0456abcd".getBytes(StandardCharsets.UTF_8)))).build()).always();
    server.expect().get().withPath(CM + "bad").andReturn(200, new ConfigMapBuilder().withNewMetadata()
        .withName("bad").withNamespace("storage").endMetadata().withData(Map.of("fsid", "my-file-system")).build())
        .always();
    server.expect().get().withPath(SECRET + "locked").andReturn(403, new StatusBuilder().withCode(403)
        .withReason("Forbidden").withMessage("secrets \"locked\" is forbidden: User "
            + "\"system:serviceaccount:kube-system:efs-csi-controller-sa\" cannot get resource \"secrets\"").build())
        .always();
  }

  @AfterEach
  void tearDown() {
    client.close();
    server.destroy();
  }

  private static Map<String, String> params(String... extra) {
    Map<String, String> p = new HashMap<>(Map.of("provisioningMode", "efs-ap", "directoryPerms", "700"));
    for (int i = 0; i < extra.length; i += 2) {
      p.put(extra[i], extra[i + 1]);
    }
    return p;
  }

  private EfsVolumeParameters parse(String... extra) {
    return EfsVolumeParameters.parse(params(extra), Map.of(), refs);
  }

  private static Consumer<DriverException> code(Class<? extends DriverError> type) {
    return e -> assertThat(e.error()).isInstanceOf(type);
  }

  @Test
  void theIdComesFromTheConfigMapOrTheSecret() {
    assertThat(parse("fileSystemIdConfigRef", "storage/efs/fsid").fileSystemId()).isEqualTo("fs-0123abcd");
    assertThat(parse("fileSystemIdSecretRef", "storage/efs/id").fileSystemId()).isEqualTo("fs-0456abcd");
  }

  @Test
  void aMissingObjectOrKeyIsNotFoundNamingTheParameter() {
    assertThatThrownBy(() -> parse("fileSystemIdConfigRef", "storage/nope/fsid"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.NotFound.class))
        .hasMessageContaining("fileSystemIdConfigRef storage/nope/fsid").hasMessageContaining("does not exist");
    assertThatThrownBy(() -> parse("fileSystemIdSecretRef", "storage/efs/other"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.NotFound.class))
        .hasMessageContaining("fileSystemIdSecretRef storage/efs/other").hasMessageContaining("has no key other");
  }

  @Test
  void aRefusedReadIsPermissionDeniedSayingWhichRbacIsMissing() {
    assertThatThrownBy(() -> parse("fileSystemIdSecretRef", "storage/locked/id"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.PermissionDenied.class))
        .hasMessageContaining("fileSystemIdSecretRef storage/locked/id")
        .hasMessageContaining("get on secrets").hasMessageContaining("controller.fileSystemIdRefs.enabled");
  }

  @Test
  void aValueThatIsNoFileSystemIdOrAMalformedReferenceIsInvalidArgument() {
    assertThatThrownBy(() -> parse("fileSystemIdConfigRef", "storage/bad/fsid"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.InvalidArgument.class))
        .hasMessageContaining("fileSystemIdConfigRef storage/bad/fsid").hasMessageContaining("\"my-file-system\"");
    for (String malformed : List.of("storage/efs", "storage/efs/fsid/more", "Storage/efs/fsid", "storage//fsid",
        "storage/efs/", "storage/efs/bad key")) {
      assertThatThrownBy(() -> parse("fileSystemIdConfigRef", malformed)).as(malformed)
          .isInstanceOfSatisfying(DriverException.class, code(DriverError.InvalidArgument.class))
          .hasMessageContaining("fileSystemIdConfigRef \"" + malformed + "\"");
    }
    assertThatThrownBy(() -> parse("fileSystemId", "fs-0123abcd", "fileSystemIdSecretRef", "storage/efs/id"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.InvalidArgument.class))
        .hasMessageContaining("conflicting fileSystemId and fileSystemIdSecretRef");
    assertThatThrownBy(() -> parse()).isInstanceOfSatisfying(DriverException.class,
        code(DriverError.InvalidArgument.class)).hasMessageContaining("missing fileSystemId: set exactly one of");
  }

  @Test
  void anUnreachableApiIsUnavailable() {
    server.destroy();

    assertThatThrownBy(() -> parse("fileSystemIdConfigRef", "storage/efs/fsid"))
        .isInstanceOfSatisfying(DriverException.class, code(DriverError.Unavailable.class))
        .hasMessageContaining("fileSystemIdConfigRef storage/efs/fsid");
  }

  @Test
  void createVolumeProvisionsInTheReferencedFileSystem() throws Exception {
    // efs-dir through the local stand-in mount; CreateVolume still asks EFS (moto) whether the name has an access point.
    try (MotoEfs aws = MotoEfs.start(RealismProfile.instant());
        EfsCloudFactory clouds = aws.clouds(new MetricsRegistry())) {
      String fileSystemId = aws.createFileSystem();
      server.expect().get().withPath(CM + "moto").andReturn(200, new ConfigMapBuilder().withNewMetadata()
          .withName("moto").withNamespace("storage").endMetadata().withData(Map.of("fsid", fileSystemId)).build())
          .always();
      try (EfsControllerProvider controller = EfsControllerProvider.create(new EfsControllerOptions(Map.of(), false,
          dir.resolve("work"), ""), clouds,
          LinuxMounter.create(ProcessCommandRunner.create()), new KubernetesValueReader(() -> client),
          new MetricsRegistry(), Optional.of(LocalDirectoryMountBackend.factory(dir.resolve("efs-local"))))) {
        Volume volume = controller.provisioner().createVolume(new VolumeRequest("pvc-ref", CapacityRange.UNSPECIFIED,
            List.of(VolumeCapability.mount(AccessMode.MULTI_NODE_MULTI_WRITER, "")),
            Map.of("provisioningMode", "efs-dir", "fileSystemIdConfigRef", "storage/moto/fsid", "basePath", "/dyn"),
            Map.of(), Map.of(), new VolumeSource.Empty(), TopologyRequirement.NONE));

        assertThat(volume.volumeId()).isEqualTo("efs:" + fileSystemId + ":/dyn/pvc-ref");
        assertThat(dir.resolve("efs-local/" + fileSystemId + "/dyn/pvc-ref")).isDirectory();
      }
    }
  }
}
