package io.awscsi.launcher.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * Builds the fabric8 client on first use, from fabric8's default configuration (in-cluster service account, or
 * {@code KUBECONFIG} / {@code ~/.kube/config}), so a node without Kubernetes access still starts and only the features
 * that need the API fail. Thread-safe; closing closes the client if it was built.
 */
public final class KubernetesClientProvider implements Supplier<KubernetesClient>, AutoCloseable {

  private final Supplier<KubernetesClient> factory;
  private KubernetesClient client;

  KubernetesClientProvider(Supplier<KubernetesClient> factory) {
    this.factory = factory;
  }

  /** fabric8's default configuration. */
  public static KubernetesClientProvider fromDefaultConfig() {
    return new KubernetesClientProvider(() -> new KubernetesClientBuilder().build());
  }

  /** Upstream's {@code --kubeconfig}: that file instead of the default lookup; read on first use. */
  public static KubernetesClientProvider fromKubeconfig(Path kubeconfig) {
    return new KubernetesClientProvider(
        () -> new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(kubeconfig.toFile())).build());
  }

  /** A client built elsewhere (tests, a launcher that already has one). */
  public static KubernetesClientProvider of(KubernetesClient client) {
    return new KubernetesClientProvider(() -> client);
  }

  @Override
  public synchronized KubernetesClient get() {
    if (client == null) {
      client = factory.get();
    }
    return client;
  }

  @Override
  public synchronized void close() {
    if (client != null) {
      client.close();
      client = null;
    }
  }
}
