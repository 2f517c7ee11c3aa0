package io.awscsi.efs.controller;

import static org.assertj.core.api.Assertions.assertThat;

import io.awscsi.aws.testing.KubernetesMockApi;
import io.awscsi.efs.controller.KubernetesValueReader.Kind;
import io.awscsi.efs.controller.KubernetesValueReader.Result;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Against fabric8's mock API server: every answer the EFS controller turns into a gRPC code. */
class KubernetesValueReaderTest {

  private static final Duration WAIT = Duration.ofSeconds(10);
  private KubernetesMockApi api;
  private KubernetesClient client;
  private KubernetesValueReader reader;

  @BeforeEach
  void setUp() {
    api = KubernetesMockApi.start();
    client = api.clientWithRequestTimeout(Duration.ofSeconds(5));
    reader = new KubernetesValueReader(() -> client);
  }

  @AfterEach
  void tearDown() {
    client.close();
    api.close();
  }

  @Test
  void readsAConfigMapKeyAndADecodedSecretKey() {
    api.client().configMaps().inNamespace("storage").resource(new ConfigMapBuilder().withNewMetadata()
        .withName("efs").endMetadata().withData(Map.of("fsid", "fs-0123abcd")).build()).create();
    api.client().secrets().inNamespace("storage").resource(new SecretBuilder().withNewMetadata()
        .withName("efs-secret").endMetadata().withData(Map.of("id", Base64.getEncoder()
            .encodeToString("fs-0456abcd".getBytes(StandardCharsets.UTF_8)))).build()).create();

    assertThat(reader.read(Kind.CONFIG_MAP, "storage", "efs", "fsid", WAIT))
        .isEqualTo(new Result.Found("fs-0123abcd"));
    assertThat(reader.read(Kind.SECRET, "storage", "efs-secret", "id", WAIT))
        .isEqualTo(new Result.Found("fs-0456abcd"));
  }

  @Test
  void aMissingObjectOrKeyIsMissingNamingIt() {
    api.client().configMaps().inNamespace("storage").resource(new ConfigMapBuilder().withNewMetadata()
        .withName("efs").endMetadata().withData(Map.of("other", "x")).build()).create();

    assertThat(reader.read(Kind.CONFIG_MAP, "storage", "efs", "fsid", WAIT))
        .isEqualTo(new Result.Missing("ConfigMap storage/efs has no key fsid"));
    assertThat(reader.read(Kind.CONFIG_MAP, "storage", "nope", "fsid", WAIT))
        .isEqualTo(new Result.Missing("ConfigMap storage/nope does not exist"));
    assertThat(reader.read(Kind.SECRET, "storage", "nope", "fsid", WAIT))
        .isEqualTo(new Result.Missing("Secret storage/nope does not exist"));
  }

  @Test
  void aRefusedReadIsForbidden() {
    api.server().expect().get().withPath("/api/v1/namespaces/storage/secrets/efs")
        .andReturn(403, new StatusBuilder().withCode(403).withReason("Forbidden").withMessage(
            "secrets \"efs\" is forbidden: User \"system:serviceaccount:kube-system:efs-csi-controller-sa\" cannot "
                + "get resource \"secrets\"").build()).always();

    assertThat(reader.read(Kind.SECRET, "storage", "efs", "id", WAIT)).isInstanceOfSatisfying(Result.Forbidden.class,
        f -> assertThat(f.message()).contains("Secret storage/efs").contains("cannot get resource"));
  }

  @Test
  void anUnreachableOrFrozenApiIsUnreachableWithinTheTimeGiven() {
    try (KubernetesClient nowhere = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
        .withMasterUrl("http://127.0.0.1:1").withRequestRetryBackoffLimit(0).build()).build()) {
      assertThat(new KubernetesValueReader(() -> nowhere).read(Kind.CONFIG_MAP, "a", "b", "c", WAIT))
          .isInstanceOf(Result.Unreachable.class);
    }
    KubernetesValueReader frozen = new KubernetesValueReader(() -> {
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return client;
    });
    long started = System.nanoTime();
    assertThat(frozen.read(Kind.CONFIG_MAP, "a", "b", "c", Duration.ofMillis(300)))
        .isInstanceOfSatisfying(Result.Unreachable.class, u -> assertThat(u.message()).contains("within 300 ms"));
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
  }
}
