package io.awscsi.launcher;

import io.awscsi.core.logging.CallRecordingInterceptor;
import io.awscsi.core.logging.LoggingSetup;
import io.awscsi.core.metrics.MetricsRegistry;
import io.awscsi.core.metrics.ProcessMetrics;
import io.awscsi.core.server.CsiEndpoint;
import io.awscsi.core.server.DriverRuntime;
import io.awscsi.core.server.HttpEndpoint;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import org.apache.logging.log4j.LogManager;

/**
 * The composition root: flags -> options -> one provider wired into driver-core -> serve until SIGTERM.
 * Subcommands: {@code local} (the local runtime on emulated AWS), {@code client} (call an RPC by hand),
 * {@code pre-stop-hook} (EBS node preStop), {@code remove-startup-taint} (the node's child process for its taint).
 */
public final class Main {

  /** Exit code for a configuration error the operator must fix. */
  static final int EXIT_USAGE = 2;
  static final int EXIT_FAILURE = 1;
  private static final Duration START_SETTLE = Duration.ofSeconds(3);

  private Main() {}

  public static void main(String[] args) {
    int code = run(args, System.getenv(), System.out, System.err);
    if (code != 0) {
      System.exit(code);
    }
  }

  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    if (args.length > 0 && !args[0].startsWith("--")) {
      String[] rest = Arrays.copyOfRange(args, 1, args.length);
      return switch (args[0]) {
        case "local" -> LocalRuntime.run(rest, env, out, err);
        case "client" -> client(rest, env, out, err);
        case "pre-stop-hook" -> PreStopHook.run(env, err);
        case StartupTaintCommand.NAME -> StartupTaintCommand.run(rest, env, err);
        case "serve" -> serve(rest, env, out, err);
        default -> {
          err.println("unknown subcommand " + args[0] + "; use serve (default), local, client, pre-stop-hook or "
              + StartupTaintCommand.NAME);
          yield EXIT_USAGE;
        }
      };
    }
    return serve(args, env, out, err);
  }

  static int serve(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    DriverOptions options;
    CsiEndpoint endpoint;
    InetSocketAddress http;
    try {
      if (Arrays.asList(args).contains("--version")) {
        out.println("aws-csi-driver " + BuildInfo.version());
        return 0;
      }
      if (Arrays.asList(args).contains("--help")) {
        out.println(Usage.text());
        return 0;
      }
      options = DriverOptions.parse(args, env);
      endpoint = CsiEndpoint.parse(options.endpoint());
      http = options.httpEndpoint().isEmpty() ? null : HttpEndpoint.parseAddress(options.httpEndpoint());
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver: " + e.getMessage());
      return EXIT_USAGE;
    }
    LoggingSetup.configure(options.logFormat(), options.logLevel());
    var log = LogManager.getLogger(Main.class);
    MetricsRegistry metrics = new MetricsRegistry();
    ProcessMetrics.register(metrics);
    DriverRuntime runtime;
    DriverFactories.Built driver;
    try {
      driver = DriverFactories.create(options, metrics, env);
      runtime = DriverRuntime.start(driver.provider(), endpoint, http, metrics, options.shutdownGrace());
    } catch (Exception e) {
      log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), e.getMessage());
      err.println("aws-csi-driver: cannot start: " + e.getMessage());
      return EXIT_FAILURE;
    }
    // The node's metadata was read while the server started; without it the node cannot answer NodeGetInfo.
    Optional<String> failure = driver.awaitStartFailure();
    if (failure.isPresent()) {
      log.error("cannot start {} in {} mode: {}", options.driver().csiName(), options.mode(), failure.get());
      err.println("aws-csi-driver: cannot start: " + failure.get());
      runtime.close();
      return EXIT_FAILURE;
    }
    driver.afterStart().run();
    // Start-up garbage (configuration, class initialisation) goes once the sidecars' first calls are answered, so the
    // heap shrinks to what serving needs without pausing those calls; so does what a busy spell grew, once it is over.
    // (The runtime's call interceptor registered the counter with its labels already: this looks it up.)
    MetricsRegistry.Counter calls = metrics.counter(CallRecordingInterceptor.CALLS_METRIC, "");
    HeapCompaction.start(START_SETTLE, () -> calls.sum(labels -> HeapCompaction.isWork(labels.getFirst())));
    // SIGTERM and SIGINT run shutdown hooks: stop accepting calls, let running ones finish, remove the socket.
    Thread hook = Thread.ofPlatform().name("shutdown").unstarted(runtime::close);
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      runtime.awaitTermination();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return 0;
  }

  static int client(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
    try {
      Flags f = Usage.CLIENT.parse(args);
      if (f.positional().isEmpty()) {
        err.println("usage: aws-csi-driver client [--endpoint unix:///path] RPC ['{json request}']");
        return EXIT_USAGE;
      }
      String endpoint = f.string("endpoint", env.getOrDefault("CSI_ENDPOINT", "unix:///tmp/csi.sock"));
      CsiEndpoint.parse(endpoint);
      return CsiClient.run(endpoint, f.positional().get(0), f.positional().size() > 1 ? f.positional().get(1) : "{}",
          out, err);
    } catch (IllegalArgumentException e) {
      err.println("aws-csi-driver client: " + e.getMessage());
      return EXIT_USAGE;
    }
  }
}
