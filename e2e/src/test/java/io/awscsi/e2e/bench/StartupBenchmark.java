package io.awscsi.e2e.bench;

import csi.v1.GetPluginCapabilitiesRequest;
import csi.v1.GetPluginInfoRequest;
import csi.v1.IdentityGrpc;
import csi.v1.NodeGetCapabilitiesRequest;
import csi.v1.NodeGetInfoRequest;
import csi.v1.NodeGrpc;
import csi.v1.ProbeRequest;
import io.awscsi.realism.process.MetadataMock;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import pluginregistration.InfoRequest;
import pluginregistration.RegistrationGrpc;
import pluginregistration.RegistrationStatus;

/**
 * Node-mode footprint of the built distribution: time from process start to the first successful Probe, and resident
 * memory once idle (10 s after ready and the registration calls), each the median of several runs, with and without
 * the AOT cache in the same run (this machine is noisy, so compare within one run), and the one-container node (the
 * kubelet registration and /healthz served by the plugin, in place of node-driver-registrar and livenessprobe).
 * Usage: StartupBenchmark DIST_DIR [runs].
 */
public final class StartupBenchmark {

  private static final long IDLE_AFTER_READY_MS = 10_000;

  private StartupBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path dist = Path.of(args.length > 0 ? args[0] : "dist/aws-csi-driver").toAbsolutePath();
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Path aot = dist.resolve("aot/ebs-node.aot");
    try (MetadataMock imds = MetadataMock.builder().instanceId("i-0123456789abcdef0").instanceType("m5.large")
        .availabilityZone("us-east-1a").start()) {
      Map<String, String> env = Map.of("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.endpoint().toString(),
          "AWS_REGION", "us-east-1", "DISABLE_TAINT_WATCHER", "true");
      boolean hasAot = Files.exists(aot);
      System.out.printf("node-mode start-up, %d runs each (%s)%n", runs, dist);
      Result without = measure(dist, env, runs, "none", false);
      print("JIT only", without);
      if (hasAot) {
        Result with = measure(dist, env, runs, aot.toString(), false);
        print("AOT cache", with);
        System.out.printf("ratio AOT/JIT: ready %.2f, idle RSS %.2f%n", with.readyMs / without.readyMs,
            with.rssMiB / without.rssMiB);
        // One container: the kubelet plugin registration and /healthz in the plugin, the test in the kubelet's place.
        Path registrationAot = dist.resolve("aot/ebs-node-registration.aot");
        Path singleAot = Files.exists(registrationAot) ? registrationAot : aot;
        Result single = measure(dist, env, runs, singleAot.toString(), true);
        print("one-container", single);
        System.out.printf("one container (%s): registration socket at median %.0f ms; idle RSS %.2fx the plugin"
            + " alone (%+.1f MiB), %.2fx upstream's 88 MiB node pod (plugin 47 + registrar 21 + livenessprobe 21)%n",
            singleAot.getFileName(), single.registrationMs, single.rssMiB / with.rssMiB, single.rssMiB - with.rssMiB,
            single.rssMiB / 88.0);
        // As on a cluster: the startup taint is there to remove (by the node's child process), as EKS nodes have it.
        try (KubeApiStandIn kube = KubeApiStandIn.start(Files.createTempDirectory("bench-kube"))) {
          Map<String, String> cluster = new java.util.HashMap<>(env);
          cluster.remove("DISABLE_TAINT_WATCHER");
          cluster.put("KUBECONFIG", kube.kubeconfig().toString());
          cluster.put("CSI_NODE_NAME", "node-1");
          Result onCluster = measure(dist, cluster, runs, aot.toString(), false);
          print("AOT+taint", onCluster);
          System.out.printf("startup taint removals seen by the API stand-in: %d of %d runs%n", kube.patches(), runs);
        }
      } else {
        System.out.println("no AOT cache at " + aot + " (make build-aot makes the caches)");
      }
    }
  }

  record Result(double readyMs, double rssMiB, List<Long> readies, List<Long> rss, double socketMs,
      double registrationMs) {}

  /** The Kubernetes API a node sees at start: its Node with the startup taint, its CSINode with the driver listed. */
  static final class KubeApiStandIn implements AutoCloseable {
    private final com.sun.net.httpserver.HttpServer server;
    private final Path kubeconfig;
    private final java.util.concurrent.atomic.AtomicInteger patches = new java.util.concurrent.atomic.AtomicInteger();

    private KubeApiStandIn(com.sun.net.httpserver.HttpServer server, Path kubeconfig) {
      this.server = server;
      this.kubeconfig = kubeconfig;
    }

    static KubeApiStandIn start(Path dir) throws IOException {
      var server = com.sun.net.httpserver.HttpServer.create(
          new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
      Path kubeconfig = dir.resolve("kubeconfig");
      Files.writeString(kubeconfig, """
          apiVersion: v1
          kind: Config
          clusters: [{name: c, cluster: {server: "http://127.0.0.1:%d"}}]
          users: [{name: u, user: {token: t}}]
          contexts: [{name: x, context: {cluster: c, user: u}}]
          current-context: x
          """.formatted(server.getAddress().getPort()));
      KubeApiStandIn standIn = new KubeApiStandIn(server, kubeconfig);
      server.createContext("/api/v1/nodes/node-1", exchange -> {
        if (exchange.getRequestMethod().equals("PATCH")) {
          exchange.getRequestBody().readAllBytes();
          standIn.patches.incrementAndGet();
        }
        reply(exchange, "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"node-1\"},\"spec\":"
            + "{\"taints\":[{\"key\":\"ebs.csi.aws.com/agent-not-ready\",\"effect\":\"NoExecute\"}]}}");
      });
      server.createContext("/apis/storage.k8s.io/v1/csinodes/node-1", exchange -> reply(exchange,
          "{\"apiVersion\":\"storage.k8s.io/v1\",\"kind\":\"CSINode\",\"metadata\":{\"name\":\"node-1\"},"
              + "\"spec\":{\"drivers\":[{\"name\":\"ebs.csi.aws.com\",\"nodeID\":\"i-1\","
              + "\"allocatable\":{\"count\":25}}]}}"));
      server.start();
      return standIn;
    }

    private static void reply(com.sun.net.httpserver.HttpExchange exchange, String body) throws IOException {
      byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, bytes.length);
      exchange.getResponseBody().write(bytes);
      exchange.close();
    }

    Path kubeconfig() {
      return kubeconfig;
    }

    int patches() {
      return patches.get();
    }

    @Override
    public void close() {
      server.stop(0);
    }
  }

  private static void print(String label, Result r) {
    System.out.printf("%-13s time to ready: median %.0f ms %s (socket bound: median %.0f ms); idle RSS: median %.1f MiB"
        + " %s%n", label, r.readyMs, r.readies, r.socketMs, r.rssMiB, r.rss.stream().map(k -> k / 1024).toList());
  }

  /** {@code oneContainer}: the plugin also serves the kubelet registration and {@code /healthz}, as in one container. */
  private static Result measure(Path dist, Map<String, String> env, int runs, String aotCache, boolean oneContainer)
      throws Exception {
    List<Long> readies = new ArrayList<>();
    List<Long> rss = new ArrayList<>();
    List<Long> sockets = new ArrayList<>();
    List<Long> registrations = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      String name = "bench-startup-" + ProcessHandle.current().pid() + "-" + i;
      Path socket = Path.of("/tmp", name + ".sock");
      Path registry = Path.of("/tmp", name + "-registry");
      Path registrationSocket = registry.resolve("ebs.csi.aws.com-reg.sock");
      List<String> command = new ArrayList<>(List.of(dist.resolve("bin/aws-csi-driver").toString(), "--driver",
          "ebs", "--mode", "node", "--endpoint", "unix://" + socket, "--log-level", "warn"));
      int httpPort = oneContainer ? freePort() : 0;
      if (oneContainer) {
        command.addAll(List.of("--kubelet-registration-path", socket.toString(), "--plugin-registration-path",
            registry.toString(), "--http-endpoint", "127.0.0.1:" + httpPort));
      }
      ProcessBuilder pb = new ProcessBuilder(command)
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
      pb.environment().putAll(env);
      pb.environment().put("AWS_CSI_AOT_CACHE", aotCache);
      long start = System.nanoTime();
      Process p = pb.start();
      try {
        readies.add(waitReady(socket, start, sockets));
        if (oneContainer) {
          registrations.add(waitFor(registrationSocket, start));
          kubeletRegisters(registrationSocket, socket);
          healthz(httpPort);
        }
        register(socket);
        // Idle means settled: the JIT's arenas freed and glibc's free memory given back (trimmed every 5 s).
        Thread.sleep(IDLE_AFTER_READY_MS / 2);
        if (oneContainer) {
          // What the kubelet does while the node idles: its probes and its plugin connection monitor.
          healthz(httpPort);
          getInfo(registrationSocket);
        }
        Thread.sleep(IDLE_AFTER_READY_MS / 2);
        rss.add(rssKiB(p.pid()));
      } finally {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
        Files.deleteIfExists(socket);
        Files.deleteIfExists(registrationSocket);
        Files.deleteIfExists(registry);
      }
    }
    return new Result(median(readies), median(rss) / 1024.0, readies, rss, median(sockets),
        registrations.isEmpty() ? 0 : median(registrations));
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static long waitFor(Path file, long start) throws InterruptedException {
    while (!Files.exists(file)) {
      Thread.sleep(2);
      if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(30)) {
        throw new IllegalStateException("no " + file + " after 30 s");
      }
    }
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }

  /** The kubelet's plugin watcher: GetInfo on the registration socket, NodeGetInfo on the CSI socket, the outcome. */
  private static void kubeletRegisters(Path registrationSocket, Path csiSocket) {
    getInfo(registrationSocket);
    ManagedChannel csi = Grpc.newChannelBuilder("unix://" + csiSocket, InsecureChannelCredentials.create()).build();
    ManagedChannel reg = Grpc.newChannelBuilder("unix://" + registrationSocket, InsecureChannelCredentials.create())
        .build();
    try {
      NodeGrpc.newBlockingStub(csi).withDeadlineAfter(5, TimeUnit.SECONDS)
          .nodeGetInfo(NodeGetInfoRequest.getDefaultInstance());
      RegistrationGrpc.newBlockingStub(reg).withDeadlineAfter(5, TimeUnit.SECONDS)
          .notifyRegistrationStatus(RegistrationStatus.newBuilder().setPluginRegistered(true).build());
    } finally {
      csi.shutdownNow();
      reg.shutdownNow();
    }
  }

  private static void getInfo(Path registrationSocket) {
    ManagedChannel reg = Grpc.newChannelBuilder("unix://" + registrationSocket, InsecureChannelCredentials.create())
        .build();
    try {
      if (RegistrationGrpc.newBlockingStub(reg).withDeadlineAfter(5, TimeUnit.SECONDS)
          .getInfo(InfoRequest.getDefaultInstance()).getName().isEmpty()) {
        throw new IllegalStateException("GetInfo answered no driver name");
      }
    } finally {
      reg.shutdownNow();
    }
  }

  /** The kubelet's probes of the one-container node: liveness on /healthz, readiness on /readyz. */
  private static void healthz(int port) throws IOException, InterruptedException {
    try (HttpClient http = HttpClient.newHttpClient()) {
      for (String path : List.of("/healthz", "/readyz")) {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(java.time.Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
          throw new IllegalStateException(path + " answered " + r.statusCode() + ": " + r.body());
        }
      }
    }
  }

  private static long waitReady(Path socket, long start, List<Long> sockets) throws InterruptedException {
    while (!Files.exists(socket)) {
      Thread.sleep(2);
      if (System.nanoTime() - start > TimeUnit.SECONDS.toNanos(30)) {
        throw new IllegalStateException("no socket after 30 s");
      }
    }
    sockets.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    ManagedChannel channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
    try {
      while (true) {
        try {
          if (IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(1, TimeUnit.SECONDS)
              .probe(ProbeRequest.getDefaultInstance()).getReady().getValue()) {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          }
          Thread.sleep(2);
        } catch (io.grpc.StatusRuntimeException notYet) {
          // The socket file exists from bind(); a connect before listen() is refused. Retry at once, not after
          // gRPC's reconnect backoff, which would be measured as start-up time.
          channel.resetConnectBackoff();
          Thread.sleep(2);
        }
      }
    } finally {
      channel.shutdownNow();
    }
  }

  /**
   * What a node plugin answers right after it is ready on a cluster: node-driver-registrar's GetPluginInfo, kubelet's
   * NodeGetInfo and the capability calls. Idle RSS is measured after them, as a node runs its idle hours.
   */
  private static void register(Path socket) {
    ManagedChannel channel = Grpc.newChannelBuilder("unix://" + socket, InsecureChannelCredentials.create()).build();
    try {
      var identity = IdentityGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
      var node = NodeGrpc.newBlockingStub(channel).withDeadlineAfter(5, TimeUnit.SECONDS);
      if (identity.getPluginInfo(GetPluginInfoRequest.getDefaultInstance()).getName().isEmpty()
          || identity.getPluginCapabilities(GetPluginCapabilitiesRequest.getDefaultInstance()).getCapabilitiesCount() == 0
          || node.nodeGetCapabilities(NodeGetCapabilitiesRequest.getDefaultInstance()).getCapabilitiesCount() == 0
          || node.nodeGetInfo(NodeGetInfoRequest.getDefaultInstance()).getNodeId().isEmpty()) {
        throw new IllegalStateException("the node plugin answered a registration call with an empty response");
      }
    } finally {
      channel.shutdownNow();
    }
  }

  private static long rssKiB(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    return 0;
  }

  private static double median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }
}
