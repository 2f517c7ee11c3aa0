package io.awscsi.aws.testing;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's mock API server on 127.0.0.1 in mixed mode: objects created through {@link #client()} are stored and
 * served (CRUD), and expectations set with {@link #server()}{@code .expect()} answer first when they match.
 */
public final class KubernetesMockApi implements AutoCloseable {

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private KubernetesMockApi(KubernetesMockServer server) {
    this.server = server;
    this.client = clientWithRequestTimeout(Duration.ofSeconds(10));
  }

  public static KubernetesMockApi start() {
    Map<ServerRequest, Queue<ServerResponse>> responses = new HashMap<>();
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            responses,
            new KubernetesMixedDispatcher(responses),
            false);
    server.init(InetAddress.getLoopbackAddress(), 0);
    return new KubernetesMockApi(server);
  }

  public KubernetesMockServer server() {
    return server;
  }

  public KubernetesClient client() {
    return client;
  }

  /**
   * A further client without client-side retries, so a failed request reaches the code under test at once rather than
   * after ~100 s of backoff, and with its own request timeout (the mock never answers a JSON patch whose test
   * operation fails, where a real API server says 422). Closed by the caller.
   */
  public KubernetesClient clientWithRequestTimeout(Duration timeout) {
    return server.createClient(
        b ->
            b.editOrNewConfig()
                .withRequestRetryBackoffLimit(0)
                .withRequestTimeout((int) timeout.toMillis())
                .endConfig());
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
