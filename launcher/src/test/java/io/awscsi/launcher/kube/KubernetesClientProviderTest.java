package io.awscsi.launcher.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubernetesClientProviderTest {

  private final AtomicInteger built = new AtomicInteger();

  private KubernetesClient build() {
    built.incrementAndGet();
    // Building a client does not connect; nothing listens on this port.
    return new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())
        .build();
  }

  @Test
  void buildsTheClientOnFirstUseOnlyAndOnce() {
    try (KubernetesClientProvider provider = new KubernetesClientProvider(this::build)) {
      assertThat(built).hasValue(0);

      KubernetesClient first = provider.get();

      assertThat(provider.get()).isSameAs(first);
      assertThat(built).hasValue(1);
    }
  }

  @Test
  void closingBeforeUseBuildsNothing() {
    new KubernetesClientProvider(this::build).close();

    assertThat(built).hasValue(0);
  }

  @Test
  void defaultConfigIsNotReadAtConstruction() {
    // Would fail on a machine without kubeconfig if it were read eagerly; here it must simply not throw.
    try (KubernetesClientProvider provider = KubernetesClientProvider.fromDefaultConfig()) {
      assertThat(provider).isNotNull();
    }
  }

  @Test
  void anExplicitKubeconfigIsReadOnFirstUse(@TempDir Path dir) throws Exception {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(
        kubeconfig,
        """
        apiVersion: v1
        kind: Config
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443"}}]
        users: [{name: u, user: {token: t}}]
        contexts: [{name: x, context: {cluster: c, user: u}}]
        current-context: x
        """);
    try (KubernetesClientProvider provider = KubernetesClientProvider.fromKubeconfig(kubeconfig)) {
      assertThat(provider.get().getMasterUrl().toString()).startsWith("https://127.0.0.1:6443");
    }
  }
}
